/**
 * The audit archive's layout in its bucket: the stack grants the archiver
 * writes under this prefix only, and the archiver names every object under it.
 */
export const ARCHIVE_PREFIX = 'audit/';
