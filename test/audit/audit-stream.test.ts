/**
 * End to end: the endpoints write audit records into DynamoDB Local, the
 * local stream reader (local/audit-stream.ts) feeds DynamoDB Local's stream
 * to the archive handler, and the handler writes to an S3 API on loopback
 * (s3rver). This file uses its own audit table, so its stream holds only
 * this file's records.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { documentClient } from '../../lambda/composition/dynamo';
import { AUDIT_TABLE } from '../../lambda/contract/tables';
import { startAuditStreamArchiver, type AuditStreamArchiver } from '../../local/audit-stream';
import { readCheckpoint } from '../../local/stream-records';
import { localDynamoClient } from '../../local/dynamodb-local';
import { startLocalS3, type LocalS3 } from '../../local/s3-local';
import { ensureTable } from '../../local/tables';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { readIssuedValues } from '../support/issued-values';
import { needlesOf, sweepPlaintext } from '../support/plaintext-scan';
import { linesOf, readArchive, loopbackS3, sampleEvents } from './helpers';
import { auditItem } from '../../lambda/store/entities/audit-record';
import { hashKeyValue } from '../../lambda/domain/key-values';

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const BUCKET = 'audit-stream-test';
const auditTableName = `test-audit-stream-${randomUUID().slice(0, 8)}`;

let workDir: string;
let checkpointFile: string;
let s3: LocalS3;
let client: S3Client;
let handler: Handler;
let archiver: AuditStreamArchiver | undefined;
/** Every batch the archiver handed over, with the handler's answer. */
let deliveries: Array<{ records: DynamoDBRecord[]; response: DynamoDBBatchResponse }>;
let team: TestTeam;

function dynamoEndpoint(): string {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run through jest (test/setup)');
  return endpoint;
}

/** Starts a reader of this file's audit table whose batches are recorded in `deliveries`. */
async function startArchiver(options: { checkpoint: boolean }): Promise<AuditStreamArchiver> {
  deliveries = [];
  return startAuditStreamArchiver({
    dynamoEndpoint: dynamoEndpoint(),
    auditTableName,
    pollMs: 50,
    maxAttempts: 2,
    checkpointFile: options.checkpoint ? checkpointFile : undefined,
    handler: async (event) => {
      const response = await handler(event);
      deliveries.push({ records: event.Records, response });
      return response;
    },
  });
}

const archivedLines = async () => linesOf(await readArchive(client, BUCKET));
const sequenceNumbersDelivered = () => deliveries.flatMap(({ records }) => records.map((record) => record.dynamodb?.SequenceNumber));

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'audit-stream-test-'));
  checkpointFile = path.join(workDir, 'audit-stream-checkpoint.json');
  const ddb = localDynamoClient(dynamoEndpoint());
  try {
    await ensureTable(ddb, AUDIT_TABLE, auditTableName);
  } finally {
    ddb.destroy();
  }
  // The services read the audit table's name on every call: they now write here.
  process.env.AUDIT_TABLE_NAME = auditTableName;

  s3 = await startLocalS3({ directory: path.join(workDir, 's3'), buckets: [BUCKET] });
  client = loopbackS3(s3.endpoint);
  process.env.S3_ENDPOINT = s3.endpoint;
  process.env.ARCHIVE_BUCKET_NAME = BUCKET;
  delete process.env.ARCHIVE_DIR;
  ({ handler } = await import('../../lambda/handlers/archive-audit'));

  // Quiet: the archiver logs a line per batch.
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  archiver = await startArchiver({ checkpoint: true });
  team = await newTeam('live');
});

afterAll(async () => {
  await archiver?.stop();
  client?.destroy();
  await s3?.stop();
  rmSync(workDir, { recursive: true, force: true });
  jest.restoreAllMocks();
});

describe('audit stream → archive: happy path', () => {
  it('create, regenerate and delete each produce exactly one archived line', async () => {
    // Prepare
    const created = await createKey(team, { name: 'Archived key' });
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id } });
    const deleted = await call('delete-api-key', { key: team.key, body: { key_id: created.id, confirm_deletion: true, reason: 'archive test' } });
    expect([regenerated.status, deleted.status]).toEqual([200, 200]);
    // Act
    await archiver?.drain();
    // Assess
    const lines = await archivedLines();
    const ofKey = lines.filter(({ line }) => line.key_id === created.id);
    expect(ofKey.map(({ line }) => line.event_type).sort()).toEqual(['key.created', 'key.deleted', 'key.regenerated']);
    for (const { key, line } of ofKey) {
      const day = (line.occurred_at as string).slice(0, 10).split('-');
      expect(key).toBe(`audit/year=${day[0]}/month=${day[1]}/day=${day[2]}/${key.split('/').pop()}`);
      expect(key).toMatch(new RegExp(`/\\d+-${line.event_id}\\.jsonl\\.gz$`));
    }
    const bootstrap = lines.filter(({ line }) => line.key_id === team.keyId);
    expect(bootstrap.map(({ line }) => [line.event_type, line.via])).toEqual([['key.created', 'bootstrap']]);
  });

  it('a restart resumes from the checkpoint: records written while stopped are archived and nothing is delivered twice', async () => {
    // Prepare
    await archiver?.stop();
    const before = readCheckpoint(checkpointFile);
    const whileStopped = await createKey(team, { name: 'Created while the archiver was stopped' });
    // Act
    archiver = await startArchiver({ checkpoint: true });
    await archiver.drain();
    // Assess
    expect(Object.values(before.shards).some((shard) => shard.sequenceNumber !== undefined)).toBe(true);
    const delivered = deliveries.flatMap(({ records }) => records);
    expect(delivered.map((record) => [record.eventName, record.dynamodb?.NewImage?.key_id?.S])).toEqual([['INSERT', whileStopped.id]]);
    const lines = (await archivedLines()).filter(({ line }) => line.key_id === whileStopped.id);
    expect(lines.map(({ line }) => line.event_type)).toEqual(['key.created']);
  });

  it('replaying the whole stream from TRIM_HORIZON (no checkpoint) yields no duplicate line', async () => {
    // Prepare
    const before = await readArchive(client, BUCKET);
    await archiver?.stop();
    // Act
    archiver = await startArchiver({ checkpoint: false });
    await archiver.drain();
    // Assess
    expect(sequenceNumbersDelivered().length).toBeGreaterThanOrEqual(before.length);
    const after = await readArchive(client, BUCKET);
    expect(after.map(({ key }) => key)).toEqual(before.map(({ key }) => key));
    const ids = linesOf(after).map(({ line }) => line.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    await archiver.stop();
    archiver = await startArchiver({ checkpoint: true });
  });
});

describe('audit stream → archive: errors', () => {
  it('a poison record is reported as a failure while the rest of its batch is archived, then skipped after maxAttempts', async () => {
    // Prepare: valid, poison, valid written back to back, read while the archiver is stopped.
    jest.spyOn(console, 'error').mockImplementation(() => undefined); // the rejection is logged on purpose
    await archiver?.stop();
    const { events } = sampleEvents(new Date().toISOString());
    const before = auditItem(events.created);
    const after = auditItem(events.deleted);
    const poison: Record<string, unknown> = { ...auditItem(events.regenerated), event_type: 'key.renamed' };
    for (const item of [before, poison, after]) {
      await documentClient().send(new PutCommand({ TableName: auditTableName, Item: item }));
    }
    // Act
    archiver = await startArchiver({ checkpoint: true });
    await archiver.drain();
    // Assess
    const [first] = deliveries;
    const eventIds = first.records.map((record) => record.dynamodb?.NewImage?.event_id?.S);
    expect(eventIds).toEqual([before.event_id, poison.event_id, after.event_id]);
    const poisonSequence = first.records[1].dynamodb?.SequenceNumber as string;
    expect(first.response.batchItemFailures).toEqual([{ itemIdentifier: poisonSequence }]);
    const lines = await archivedLines();
    const idsArchived = lines.map(({ line }) => line.event_id);
    expect(idsArchived.filter((id) => id === before.event_id)).toHaveLength(1);
    expect(idsArchived.filter((id) => id === after.event_id)).toHaveLength(1);
    expect(idsArchived).not.toContain(poison.event_id);
    // Retried from the poison record (so `after` came again), then given up on, like Lambda's MaximumRetryAttempts.
    expect(sequenceNumbersDelivered().filter((sequence) => sequence === poisonSequence)).toHaveLength(2);
    expect(readCheckpoint(checkpointFile).skipped.map(({ sequenceNumber }) => sequenceNumber)).toEqual([poisonSequence]);
  });
});

describe('audit stream → archive: handler errors', () => {
  it('a batch whose handler throws is retried whole and archived once the handler succeeds', async () => {
    // Prepare
    jest.spyOn(console, 'error').mockImplementation(() => undefined); // the failed batch is logged on purpose
    await archiver?.stop();
    const { events } = sampleEvents(new Date().toISOString());
    const item = auditItem(events.created);
    await documentClient().send(new PutCommand({ TableName: auditTableName, Item: item }));
    let calls = 0;
    const flaky = await startAuditStreamArchiver({
      dynamoEndpoint: dynamoEndpoint(),
      auditTableName,
      pollMs: 50,
      maxAttempts: 3,
      checkpointFile,
      handler: async (event) => {
        calls++;
        if (calls === 1) throw new Error('S3 unreachable');
        return handler(event);
      },
    });
    try {
      // Act
      await flaky.drain();
      // Assess
      expect(calls).toBe(2);
      const lines = (await archivedLines()).filter(({ line }) => line.event_id === item.event_id);
      expect(lines).toHaveLength(1);
      expect(readCheckpoint(checkpointFile).skipped).toHaveLength(1); // only the poison record of the test above
    } finally {
      await flaky.stop();
      archiver = await startArchiver({ checkpoint: true });
    }
  });
});

describe('audit stream → archive: security', () => {
  it('no issued key value (nor its random tail) appears in any archived object or in the audit table', async () => {
    // Prepare
    await archiver?.drain();
    const values = readIssuedValues();
    const needles = needlesOf(values);
    // Act
    const objects = await readArchive(client, BUCKET);
    const sweep = await sweepPlaintext(values, [auditTableName]);
    // Assess
    expect(values.length).toBeGreaterThanOrEqual(4);
    expect(objects.length).toBeGreaterThanOrEqual(6);
    const leaks = objects.filter(({ text, bytes }) => needles.some((needle) => text.includes(needle) || bytes.includes(needle)));
    expect(leaks.map(({ key }) => key)).toEqual([]);
    // No hex digest but the chain's own (prev_hash, hash: digests of records), and none of those is a value's hash.
    const withoutChainHashes = (text: string) => text.replace(/"(prev_hash|hash)":"[0-9a-f]{64}"/g, '');
    expect(objects.filter(({ text }) => /[0-9a-f]{64}/i.test(withoutChainHashes(text))).map(({ key }) => key)).toEqual([]);
    const valueHashes = values.map((value) => hashKeyValue(value));
    expect(objects.filter(({ text }) => valueHashes.some((hash) => text.includes(hash))).map(({ key }) => key)).toEqual([]);
    expect(sweep.findings).toEqual([]);
  });
});
