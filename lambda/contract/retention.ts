/**
 * Retention settings, in one place. The CDK stack and the services read
 * these; the README's retention table is written from them.
 */

/** A deleted key's tombstone (metadata) is removed by TTL after this many days. */
export const KEY_METADATA_RETENTION_DAYS = 90;

/** Audit records must survive at least this long (the spec: two years). */
export const AUDIT_RETENTION_DAYS = 730;

/**
 * TTL of an audit item in the audit table: two years plus a margin, so the
 * table never drops a record before its archived copy is locked for as long.
 */
export const AUDIT_TABLE_TTL_DAYS = AUDIT_RETENTION_DAYS + 30;

/** S3 Object Lock retention of archived audit objects (≥ AUDIT_RETENTION_DAYS). */
export const ARCHIVE_RETENTION_DAYS = AUDIT_RETENTION_DAYS;
