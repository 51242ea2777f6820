/**
 * The verification analytics' hours as Parquet (hyparquet-writer: a small,
 * maintained, pure-JavaScript writer), to S3 in AWS or to a folder locally
 * (docs/analytics.md). A file is replaced whole: S3's PutObject, or a file
 * written aside and renamed into place.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { EXPORT_TABLE_PREFIX, exportKeyOf } from '../contract/analytics-export';
import type { AnalyticsExport } from '../domain/analytics-export';
import { entryOf } from '../domain/verification-tally';

/** One team's hour as a Parquet file: a row per key, identity, scope and outcome (no row for an entry this version cannot read). */
export function parquetOfHour(teamId: string, hour: number, counts: Readonly<Record<string, number>>): Uint8Array {
  const rows = Object.entries(counts).flatMap(([name, count]) => {
    const entry = entryOf(name);
    return entry ? [{ ...entry, count }] : [];
  });
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'start', data: rows.map(() => new Date(hour)), type: 'TIMESTAMP', nullable: false },
      { name: 'team_id', data: rows.map(() => teamId), type: 'STRING', nullable: false },
      { name: 'key_id', data: rows.map((row) => row.keyId), type: 'STRING', nullable: false },
      { name: 'identity_id', data: rows.map((row) => row.identityId || null), type: 'STRING' },
      { name: 'scope', data: rows.map((row) => row.scope || null), type: 'STRING' },
      { name: 'outcome', data: rows.map((row) => row.outcome), type: 'STRING', nullable: false },
      { name: 'count', data: rows.map((row) => BigInt(row.count)), type: 'INT64', nullable: false },
    ],
  });
  return new Uint8Array(buffer);
}

/** Exports to `bucket` (the stack's analytics bucket), under `verifications/`. */
export function s3AnalyticsExport(client: S3Client, bucket: string): AnalyticsExport {
  return {
    location: `s3://${bucket}/${EXPORT_TABLE_PREFIX}`,
    async putHour(teamId, hour, counts) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: exportKeyOf(teamId, hour),
          Body: parquetOfHour(teamId, hour, counts),
          ContentType: 'application/vnd.apache.parquet',
        }),
      );
    },
  };
}

/** Exports as files under `directory` with the same key layout (`<directory>/verifications/day=…/….parquet`). */
export function folderAnalyticsExport(directory: string): AnalyticsExport {
  const root = path.resolve(directory);
  return {
    location: `file://${path.join(root, EXPORT_TABLE_PREFIX)}`,
    async putHour(teamId, hour, counts) {
      const target = path.join(root, exportKeyOf(teamId, hour));
      await mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomUUID()}.tmp`;
      await writeFile(temporary, parquetOfHour(teamId, hour, counts));
      await rename(temporary, target);
    },
  };
}
