/**
 * Environment of the audit archiver, read through getters like
 * `config.ts`: the archive handler reads them at module scope, so a missing
 * variable fails the cold start instead of a batch.
 *
 * - `ARCHIVE_BUCKET_NAME` (required unless `ARCHIVE_DIR` is set): the bucket
 *   archived objects go to (set by the stack; see lambda/contract/function-environment.ts).
 * - `ARCHIVE_DIR` (local runtime only): write the objects as files under this
 *   folder instead of to S3, with the same key layout.
 * - `S3_ENDPOINT` (local runtime only): an S3 API on loopback (s3rver); the
 *   client then uses path-style addressing and s3rver's fixed credentials.
 */

import { optionalSetting as optional, requiredSetting } from './environment';

/** Access key and secret s3rver accepts (its documented defaults); never AWS credentials. */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** Where archived objects go: an S3 bucket (AWS or an S3 API on loopback) or a local folder. */
export type ArchiveTarget =
  { readonly kind: 's3'; readonly bucket: string; readonly endpoint: string | undefined } | { readonly kind: 'folder'; readonly directory: string };

export const archiveConfig = {
  /** Folder of the folder writer (`ARCHIVE_DIR`); when set, S3 is not used. */
  get archiveDir(): string | undefined {
    return optional('ARCHIVE_DIR');
  },
  /** Endpoint override for S3 (`S3_ENDPOINT`, an S3 API on loopback); unset in AWS. */
  get s3Endpoint(): string | undefined {
    return optional('S3_ENDPOINT');
  },
  /** The archive bucket (`ARCHIVE_BUCKET_NAME`); throws when missing. */
  get bucketName(): string {
    return requiredSetting('ARCHIVE_BUCKET_NAME');
  },
  /** The folder when `ARCHIVE_DIR` is set, otherwise the bucket (required). */
  get target(): ArchiveTarget {
    const directory = this.archiveDir;
    if (directory !== undefined) return { kind: 'folder', directory };
    return { kind: 's3', bucket: this.bucketName, endpoint: this.s3Endpoint };
  },
} as const;
