/**
 * The archive handler (lambda/handlers/archive-audit.ts) with stream batches
 * shaped like Lambda's (test/fixtures/dynamodb-stream-record.json) and a real
 * S3 API on loopback (s3rver on a free port, files in a temp folder).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { type NewAuditEvent } from '../../lambda/domain/audit-events';
import { AUDIT_STORAGE_ATTRIBUTES } from '../../lambda/domain/audit-event-schema';
import { archiveStreamBatch } from '../../lambda/use-cases/audit-archive';
import { folderArchiveWriter, type ArchiveWriter } from '../../lambda/adapters/archive-writers';
import { hashKeyValue } from '../../lambda/domain/key-values';
import { startLocalS3, type LocalS3 } from '../../local/s3-local';
import { linesOf, loopbackS3, readArchive, sampleEvents, streamRecord } from './helpers';
import { captured, testObservability } from '../support/services';
import { auditItem } from '../../lambda/store/entities/audit-record';

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const BUCKET = 'archive-audit-test';
const OBJECT_KEY = /^audit\/year=\d{4}\/month=\d{2}\/day=\d{2}\/\d+-[0-9A-HJKMNP-TV-Z]{26}\.jsonl\.gz$/;

let s3: LocalS3;
let client: S3Client;
let handler: Handler;
let s3Dir: string;
/** Every line the archiver logged in this test, as Lambda would print it. */
const logged = { join: (separator: string) => captured.lines.map((line) => line.json).join(separator) };

beforeAll(async () => {
  s3Dir = mkdtempSync(path.join(tmpdir(), 'archive-audit-s3-'));
  s3 = await startLocalS3({ directory: s3Dir, buckets: [BUCKET] });
  client = loopbackS3(s3.endpoint);
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.ARCHIVE_BUCKET_NAME = BUCKET;
  delete process.env.ARCHIVE_DIR;
  // The archiver Lambda runs, with the target from this environment and the tests' in-memory log.
  const { makeHandler } = await import('../../lambda/handlers/archive-audit');
  const { archiveConfig } = await import('../../lambda/platform/archive-config');
  handler = makeHandler(archiveConfig.target, testObservability);
});

afterAll(async () => {
  client?.destroy();
  await s3?.stop();
  rmSync(s3Dir, { recursive: true, force: true });
});

beforeEach(() => captured.clear());

afterEach(() => jest.restoreAllMocks());

const batch = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });
const insert = (event: NewAuditEvent, sequenceNumber?: string) => {
  const item = auditItem(event);
  return { item, record: streamRecord(item, { sequenceNumber }) };
};

/** Archived lines (with their object keys) of one key id. */
async function archivedLinesOf(keyId: string) {
  return linesOf(await readArchive(client, BUCKET)).filter(({ line }) => line.key_id === keyId);
}

describe('archive-audit: happy path', () => {
  it('archives an INSERT of each event type as one gzip JSON Lines object named <sequence>-<event id> under its UTC day', async () => {
    // Prepare
    const { keyId, events } = sampleEvents('2026-11-20T22:09:52.993Z');
    const inserts = Object.values(events).map((event) => insert(event));
    // Act
    const response = await handler(batch(...inserts.map(({ record }) => record)));
    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    const archived = await archivedLinesOf(keyId);
    expect(archived.map(({ line }) => line.event_type).sort()).toEqual(['key.created', 'key.deleted', 'key.old_value_expired', 'key.regenerated']);
    for (const { item, record } of inserts) {
      const expectedKey = `audit/year=2026/month=11/day=20/${record.dynamodb?.SequenceNumber}-${item.event_id}.jsonl.gz`;
      const found = archived.filter(({ key }) => key === expectedKey);
      expect(found).toHaveLength(1);
      const event = Object.fromEntries(Object.entries(item).filter(([name]) => !(AUDIT_STORAGE_ATTRIBUTES as readonly string[]).includes(name)));
      expect(found[0].line).toEqual(event);
    }
  });

  it('partitions by the UTC date of occurred_at: 23:30 at UTC-2 on 31 Dec is 1 Jan of the next year', async () => {
    // Prepare
    const { keyId, events } = sampleEvents('2026-12-31T23:30:00-02:00');
    // Act
    const response = await handler(batch(insert(events.created).record));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const archived = await archivedLinesOf(keyId);
    expect(archived).toHaveLength(1);
    expect(archived[0].key).toMatch(/^audit\/year=2027\/month=01\/day=01\//);
    expect(archived[0].key).toMatch(OBJECT_KEY);
  });

  it('ignores MODIFY and REMOVE (TTL expiry) records: no object, no failure', async () => {
    // Prepare
    const { keyId, events } = sampleEvents();
    const item = auditItem(events.deleted);
    // Act
    const response = await handler(batch(streamRecord(item, { eventName: 'MODIFY' }), streamRecord(undefined, { eventName: 'REMOVE' })));
    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(await archivedLinesOf(keyId)).toEqual([]);
  });

  it('replaying a batch yields no duplicate line: the same objects, byte for byte', async () => {
    // Prepare
    const { keyId, events } = sampleEvents();
    const event = batch(insert(events.created).record, insert(events.regenerated).record, insert(events.deleted).record);
    await handler(event);
    const first = (await readArchive(client, BUCKET)).filter(({ lines }) => lines[0]?.key_id === keyId);
    // Act
    const replay = await handler(event);
    // Assess
    expect(replay.batchItemFailures).toEqual([]);
    const second = (await readArchive(client, BUCKET)).filter(({ lines }) => lines[0]?.key_id === keyId);
    expect(second.map(({ key }) => key)).toEqual(first.map(({ key }) => key));
    expect(second.map(({ bytes }) => bytes.toString('base64'))).toEqual(first.map(({ bytes }) => bytes.toString('base64')));
    const ids = linesOf(second).map(({ line }) => line.event_id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toHaveLength(3);
  });

  it("Lambda's retry after a partial failure (from the lowest failed record on, with more records) duplicates nothing", async () => {
    // Prepare: a, poison, b, c — Lambda then resends poison, b, c and a newer record d.
    const { keyId, events } = sampleEvents();
    const a = insert(events.created).record;
    const poison = streamRecord(undefined);
    const b = insert(events.regenerated).record;
    const c = insert(events.expired).record;
    const d = insert(events.deleted).record;
    // Act
    const first = await handler(batch(a, poison, b, c));
    const retry = await handler(batch(poison, b, c, d));
    // Assess
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: poison.dynamodb?.SequenceNumber }]);
    expect(retry.batchItemFailures).toEqual([{ itemIdentifier: poison.dynamodb?.SequenceNumber }]);
    const archived = await archivedLinesOf(keyId);
    const types = archived.map(({ line }) => line.event_type).sort();
    expect(types).toEqual(['key.created', 'key.deleted', 'key.old_value_expired', 'key.regenerated']);
  });

  it('ARCHIVE_DIR mode: the folder writer uses the same layout and a replay keeps one file per event', async () => {
    // Prepare
    const folder = mkdtempSync(path.join(tmpdir(), 'archive-audit-folder-'));
    try {
      const writer = folderArchiveWriter(folder);
      const { events } = sampleEvents('2026-11-20T10:00:00.000Z');
      const created = insert(events.created);
      const deleted = insert(events.deleted);
      const event = batch(created.record, deleted.record);
      // Act
      await archiveStreamBatch(event, writer, testObservability);
      const replay = await archiveStreamBatch(event, writer, testObservability);
      // Assess
      expect(replay.batchItemFailures).toEqual([]);
      const day = path.join(folder, 'audit', 'year=2026', 'month=11', 'day=20');
      const files = readdirSync(day).sort();
      expect(files).toEqual(
        [
          `${created.record.dynamodb?.SequenceNumber}-${created.item.event_id}.jsonl.gz`,
          `${deleted.record.dynamodb?.SequenceNumber}-${deleted.item.event_id}.jsonl.gz`,
        ].sort(),
      );
      const lines = files.map((file) => JSON.parse(gunzipSync(readFileSync(path.join(day, file))).toString('utf8')));
      expect(lines.map((line) => line.event_id).sort()).toEqual([created.item.event_id, deleted.item.event_id].sort());
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('archive-audit: ARCHIVE_DIR', () => {
  it('with ARCHIVE_DIR set, the handler writes files there (no bucket needed)', async () => {
    // Prepare
    const folder = mkdtempSync(path.join(tmpdir(), 'archive-audit-env-'));
    const saved = { bucket: process.env.ARCHIVE_BUCKET_NAME, endpoint: process.env.S3_ENDPOINT };
    delete process.env.ARCHIVE_BUCKET_NAME;
    delete process.env.S3_ENDPOINT;
    process.env.ARCHIVE_DIR = folder;
    try {
      const { events } = sampleEvents('2026-11-21T08:00:00.000Z');
      const created = insert(events.created);
      // Act
      let response: DynamoDBBatchResponse | undefined;
      await jest.isolateModulesAsync(async () => {
        const module = await import('../../lambda/handlers/archive-audit');
        response = await module.handler(batch(created.record));
      });
      // Assess
      expect(response).toEqual({ batchItemFailures: [] });
      const file = path.join(
        folder,
        'audit',
        'year=2026',
        'month=11',
        'day=21',
        `${created.record.dynamodb?.SequenceNumber}-${created.item.event_id}.jsonl.gz`,
      );
      expect(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')).event_id).toBe(created.item.event_id);
    } finally {
      delete process.env.ARCHIVE_DIR;
      process.env.ARCHIVE_BUCKET_NAME = saved.bucket;
      process.env.S3_ENDPOINT = saved.endpoint;
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('archive-audit: errors', () => {
  it('poison records (no NewImage, not a DynamoDB item, not an audit event) are reported while the rest of the batch is archived', async () => {
    // Prepare
    const { keyId, events } = sampleEvents();
    const valid = [insert(events.created), insert(events.regenerated), insert(events.deleted)].map(({ record }) => record);
    const noImage = streamRecord(undefined);
    const notAnItem = streamRecord(undefined, { rawImage: { pk: { S: 'KEY#X' }, broken: {} } });
    const unknownType = streamRecord({ ...auditItem(events.expired), event_type: 'key.renamed' });
    // Act
    const response = await handler(batch(valid[0], noImage, valid[1], notAnItem, unknownType, valid[2]));
    // Assess
    expect(response.batchItemFailures).toEqual([noImage, notAnItem, unknownType].map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber })));
    const archived = await archivedLinesOf(keyId);
    expect(archived.map(({ line }) => line.event_type).sort()).toEqual(['key.created', 'key.deleted', 'key.regenerated']);
  });

  it('a field outside the event type (here a value hash) makes the record a poison record, not an archived line', async () => {
    // Prepare
    const { keyId, events, values } = sampleEvents();
    const record = streamRecord({ ...auditItem(events.created), value_hash: hashKeyValue(values[0]) });
    // Act
    const response = await handler(batch(record));
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.dynamodb?.SequenceNumber }]);
    expect(await archivedLinesOf(keyId)).toEqual([]);
  });

  it('a failed write is reported for its record only; the other records are archived', async () => {
    // Prepare
    const { events } = sampleEvents();
    const folder = mkdtempSync(path.join(tmpdir(), 'archive-audit-failing-'));
    try {
      const inner = folderArchiveWriter(folder);
      const created = insert(events.created);
      const deleted = insert(events.deleted);
      const failing: ArchiveWriter = {
        location: 'test://failing',
        put: (key, body) => (key.includes(deleted.item.event_id as string) ? Promise.reject(new Error('S3 is down')) : inner.put(key, body)),
      };
      // Act
      const response = await archiveStreamBatch(batch(created.record, deleted.record), failing, testObservability);
      // Assess
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: deleted.record.dynamodb?.SequenceNumber }]);
      const day = path.join(folder, 'audit', 'year=2026', 'month=11', 'day=20');
      expect(readdirSync(day)).toEqual([`${created.record.dynamodb?.SequenceNumber}-${created.item.event_id}.jsonl.gz`]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a record without a sequence number fails the whole batch (it cannot be reported on its own)', async () => {
    // Prepare
    const { events } = sampleEvents();
    const record = insert(events.created).record;
    delete record.dynamodb?.SequenceNumber;
    // Act
    const result = handler(batch(record));
    // Assess
    await expect(result).rejects.toThrow('stream record without a sequence number');
  });

  it('in Lambda, the handler module fails at load (cold start) when ARCHIVE_BUCKET_NAME is missing', async () => {
    // Prepare: what the Lambda runtime sets, without the bucket
    const saved = process.env.ARCHIVE_BUCKET_NAME;
    delete process.env.ARCHIVE_BUCKET_NAME;
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ApiKeyService-dev-Archiver';
    try {
      // Act + Assess
      await jest.isolateModulesAsync(async () => {
        await expect(import('../../lambda/handlers/archive-audit')).rejects.toThrow('ARCHIVE_BUCKET_NAME');
      });
    } finally {
      process.env.ARCHIVE_BUCKET_NAME = saved;
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});

describe('archive-audit: security', () => {
  it('a key value or hash pasted into free text (a deletion reason) is redacted in the archive and never logged', async () => {
    // Prepare
    const { keyId, events, values } = sampleEvents();
    const [created, regenerated] = values;
    const reason = `leaked ${created} and ${regenerated} in a ticket; hash ${hashKeyValue(created)}`;
    const record = insert({ ...events.deleted, reason } as NewAuditEvent).record;
    // Act
    const response = await handler(batch(record));
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const archived = await archivedLinesOf(keyId);
    expect(archived).toHaveLength(1);
    expect(archived[0].line.reason).toBe('leaked [REDACTED] and [REDACTED] in a ticket; hash [REDACTED]');
    const text = JSON.stringify(archived) + logged.join('\n');
    for (const secret of [created, regenerated, created.slice(-20), regenerated.slice(-20), hashKeyValue(created)]) {
      expect(text).not.toContain(secret);
    }
    expect(logged.join('\n')).toContain('redacted');
  });

  it('a rejected record is logged by sequence number and problem paths only, never its content', async () => {
    // Prepare
    const { events, values } = sampleEvents();
    const record = streamRecord({ ...auditItem(events.created), key_value: values[0], current_hash: hashKeyValue(values[0]) });
    // Act
    const response = await handler(batch(record));
    // Assess
    expect(response.batchItemFailures).toHaveLength(1);
    const logText = logged.join('\n');
    expect(logText).toContain(record.dynamodb?.SequenceNumber);
    expect(logText).toContain('unrecognized_keys');
    expect(logText).not.toContain(values[0]);
    expect(logText).not.toContain(values[0].slice(-20));
    expect(logText).not.toContain(hashKeyValue(values[0]));
  });
});
