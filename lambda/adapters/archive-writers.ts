/**
 * Where archived audit objects are written: S3 (in AWS, or an S3 API on
 * loopback) or a folder, behind one port. Write-once and idempotent: a
 * replayed object is already archived.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../platform/archive-config';
import type { ArchiveWriter } from '../domain/archive-writer';

export type { ArchiveWriter };
import { optionalSetting } from '../platform/environment';

/**
 * The S3 client of the archiver. With `endpoint` (an S3 API on loopback):
 * path-style addressing and s3rver's fixed credentials; otherwise the
 * Lambda's own region and role.
 */
export function createArchiveS3Client(endpoint?: string): S3Client {
  if (endpoint === undefined) return new S3Client({});
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: optionalSetting('AWS_REGION') ?? 'us-east-1',
    credentials: LOCAL_S3_CREDENTIALS,
  });
}

function isPreconditionFailed(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'PreconditionFailed' || error.$metadata.httpStatusCode === 412);
}

/** Writes objects to `bucket`; a replayed object (412 on `If-None-Match: *`) is already archived. */
export function s3ArchiveWriter(client: S3Client, bucket: string): ArchiveWriter {
  return {
    location: `s3://${bucket}`,
    async put(key, body) {
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentType: 'application/gzip',
            // Write-once: never replace an archived object (also spares a
            // second version in the Object Lock bucket on every replay).
            IfNoneMatch: '*',
          }),
        );
      } catch (error) {
        if (!isPreconditionFailed(error)) throw error;
      }
    },
  };
}

/**
 * Writes objects as files under `directory` with the same key layout
 * (`<directory>/audit/year=…/….jsonl.gz`). A file appears whole or not at all
 * (written aside, then hard-linked into place); an existing file is kept.
 */
export function folderArchiveWriter(directory: string): ArchiveWriter {
  const root = path.resolve(directory);
  return {
    location: `file://${root}`,
    async put(key, body) {
      const target = path.resolve(root, key);
      if (!target.startsWith(root + path.sep)) throw new Error('archive key escapes the archive folder');
      await mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomUUID()}.tmp`;
      await writeFile(temporary, body, { flag: 'wx' });
      try {
        await link(temporary, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        await unlink(temporary);
      }
    },
  };
}
