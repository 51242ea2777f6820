/**
 * Helpers of the audit-archive tests: stream records as Lambda delivers them
 * (test/fixtures/dynamodb-stream-record.json), sample audit events of every
 * type, and reading back what an S3 API on loopback holds.
 */
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import fixture from '../fixtures/dynamodb-stream-record.json';
import { AuditEventType, type AuditActor, type NewAuditEvent } from '../../lambda/domain/audit-events';
import { newKeyId } from '../../lambda/platform/ids';
import { LOCAL_S3_CREDENTIALS } from '../../lambda/platform/archive-config';
import { generateCreatedValue, generateRegeneratedValue, keyPrefixOf, lastFourOf } from '../../lambda/domain/key-values';

/** A client for the S3 API on loopback (s3rver's credentials). */
export function loopbackS3(endpoint: string): S3Client {
  return new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: LOCAL_S3_CREDENTIALS });
}

export interface ArchivedObject {
  key: string;
  bytes: Buffer;
  /** The gunzipped text. */
  text: string;
  lines: Array<Record<string, unknown>>;
}

/** Every object under `audit/` in `bucket`, read and gunzipped. */
export async function readArchive(client: S3Client, bucket: string): Promise<ArchivedObject[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'audit/', ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key as string));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const objects: ArchivedObject[] = [];
  for (const key of keys.sort()) {
    const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = Buffer.from(await (response.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
    const text = gunzipSync(bytes).toString('utf8');
    const lines = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    objects.push({ key, bytes, text, lines });
  }
  return objects;
}

/** Every archived line, with the key of its object. */
export function linesOf(objects: readonly ArchivedObject[]): Array<{ key: string; line: Record<string, unknown> }> {
  return objects.flatMap((object) => object.lines.map((line) => ({ key: object.key, line })));
}

let sequence = BigInt(Date.now()) * 1000n;

/** A fresh stream sequence number (decimal string, increasing). */
export function nextSequenceNumber(): string {
  sequence += 1n;
  return sequence.toString().padStart(28, '0');
}

/** A stream record as Lambda delivers it, with `image` as its NewImage. */
export function streamRecord(
  image: Record<string, unknown> | undefined,
  options: { sequenceNumber?: string; eventName?: 'INSERT' | 'MODIFY' | 'REMOVE'; rawImage?: Record<string, unknown> } = {},
): DynamoDBRecord {
  const newImage = options.rawImage ?? (image === undefined ? undefined : marshall(image, { removeUndefinedValues: true }));
  return {
    ...fixture,
    eventName: options.eventName ?? 'INSERT',
    dynamodb: {
      ...fixture.dynamodb,
      NewImage: newImage as Record<string, AttributeValue> | undefined,
      SequenceNumber: options.sequenceNumber ?? nextSequenceNumber(),
      StreamViewType: 'NEW_IMAGE',
    },
  } as DynamoDBRecord;
}

const actor: AuditActor = {
  user_id: '7d0c6c8e-3f55-4d53-9a55-0f3b5c1e2a10',
  key_id: '01KAHZ8J3T5Q6V7W8X9Y0Z1A2C',
  source_ip: '203.0.113.7',
  user_agent: 'archive-test',
  request_id: '4f1f7a0e-1b7e-4f0b-a3c2-0b2f4c6d8e9a',
};

export const TEAM_ID = '2b1f0c1e-8a4d-4c3b-9f6e-1d2c3b4a5f60';

/** One event of each type for a fresh key id, with values that were really generated. */
export function sampleEvents(occurredAt = '2026-11-20T22:09:52.993Z'): {
  keyId: string;
  values: string[];
  events: Record<'created' | 'regenerated' | 'expired' | 'deleted', NewAuditEvent>;
} {
  const keyId = newKeyId();
  const created = generateCreatedValue('sk', 'live', TEAM_ID);
  const regenerated = generateRegeneratedValue('sk', 'live', keyId);
  const base = { occurred_at: occurredAt, key_id: keyId, team_id: TEAM_ID, actor };
  const usage = { total_requests: 12, usage_last_30_days: 12, last_used_at: occurredAt };
  return {
    keyId,
    values: [created, regenerated],
    events: {
      created: {
        ...base,
        event_type: AuditEventType.KEY_CREATED,
        via: 'api',
        key: {
          name: 'Archive test key',
          type: 'sk',
          environment: 'live',
          scopes: ['enc.tiles:read'],
          domains: [],
          ip_whitelist: ['203.0.113.0/24'],
          rate_limit: 1000,
          expires_at: null,
          key_prefix: keyPrefixOf(created),
          last_four: lastFourOf(created),
        },
      },
      regenerated: {
        ...base,
        event_type: AuditEventType.KEY_REGENERATED,
        key: { name: 'Archive test key', type: 'sk', environment: 'live' },
        generation: 2,
        old_value: { key_prefix: keyPrefixOf(created), last_four: lastFourOf(created) },
        new_value: { key_prefix: 'sk_live_', last_four: lastFourOf(regenerated) },
        grace_period_days: 7,
        revoke_immediately: false,
        transition_ends_at: '2026-11-27T22:09:52.993Z',
        usage,
      },
      expired: {
        ...base,
        event_type: AuditEventType.KEY_OLD_VALUE_EXPIRED,
        generation: 2,
        old_value: { key_prefix: keyPrefixOf(created), last_four: lastFourOf(created) },
        transition_ends_at: occurredAt,
        transition_usage: { old: 3, new: 9 },
      },
      deleted: {
        ...base,
        event_type: AuditEventType.KEY_DELETED,
        key: { name: 'Archive test key', type: 'sk', environment: 'live', created_at: '2026-11-01T00:00:00.000Z' },
        last_four: lastFourOf(regenerated),
        reason: 'rotated out',
        revoked_values: 1,
        session: { key_id: actor.key_id, request_id: actor.request_id },
        usage,
      },
    },
  };
}
