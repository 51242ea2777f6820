/**
 * The local stand-in for Lambda's DynamoDB stream event source: reads the
 * audit table's stream in DynamoDB Local and hands each batch, as a
 * `DynamoDBStreamEvent`, to the same archive handler the stack deploys.
 *
 * It keeps Lambda's semantics where they matter to the archive:
 * - batches of up to `batchSize` records, in stream order, per shard, parent
 *   shards before their children;
 * - `batchItemFailures` (ReportBatchItemFailures): the shard resumes at the
 *   LOWEST failed sequence number, so the records after it are delivered
 *   again (the archive's per-record objects make that harmless); a thrown
 *   error retries the whole batch;
 * - a record that keeps failing is skipped after `maxAttempts` attempts and
 *   noted in the log and in the checkpoint's `skipped` list (Lambda's
 *   MaximumRetryAttempts plus an on-failure destination).
 *
 * Progress (the last processed sequence number of each shard) is kept in
 * `checkpointFile`, so a restart neither loses nor re-reads records. Without
 * a checkpoint the stream is read from TRIM_HORIZON (everything DynamoDB
 * Local still holds).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
  type AttributeValue as StreamAttributeValue,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue as LambdaAttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { errorField } from '../lambda/platform/observability';
import { terminalObservability } from './terminal-observability';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoClient } from './dynamodb-local';

/** A stream-batch handler: the archive handler, or anything shaped like it. */
export type StreamBatchHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;

export interface AuditStreamArchiverOptions {
  /** Where its lines go. Default: the terminal's (local/terminal-observability.ts). */
  readonly logger?: Logger;
  /** DynamoDB Local, e.g. `http://127.0.0.1:8000`. */
  readonly dynamoEndpoint: string;
  /** Physical name of the audit table (its stream must be enabled). */
  readonly auditTableName: string;
  /** Called with each batch; e.g. `handler` of lambda/handlers/archive-audit.ts. */
  readonly handler: StreamBatchHandler;
  /** Pause between polls when the stream has nothing new, ms. Default 1000. */
  readonly pollMs?: number;
  /** JSON file keeping each shard's last processed sequence number. Default: none (memory only). */
  readonly checkpointFile?: string;
  /** Records per batch (Lambda's default is 100). */
  readonly batchSize?: number;
  /** Attempts of a failing record before it is skipped. Default 5 (backing off from `pollMs` to 1 min). */
  readonly maxAttempts?: number;
}

export interface AuditStreamArchiver {
  /**
   * Polls until a poll finds nothing new, then resolves (tests; a clean
   * shutdown). Rejects after `timeoutMs` (default 30 s).
   */
  drain(timeoutMs?: number): Promise<void>;
  /** Stops polling and waits for the batch in flight. Safe to call twice. */
  stop(): Promise<void>;
}

/** What the checkpoint file holds. */
export interface StreamCheckpoint {
  version: 1;
  /** The stream the positions belong to; a new stream (table re-created) starts over. */
  streamArn: string | null;
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
  /** Records given up on after `maxAttempts` (Lambda: the on-failure destination). */
  skipped: Array<{ shardId: string; sequenceNumber: string; at: string }>;
}

const MAX_BACKOFF_MS = 60_000;

function emptyCheckpoint(streamArn: string | null): StreamCheckpoint {
  return { version: 1, streamArn, shards: {}, skipped: [] };
}

/** Reads a checkpoint file; a missing file is an empty checkpoint. */
export function readCheckpoint(file: string | undefined): StreamCheckpoint {
  if (file === undefined) return emptyCheckpoint(null);
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<StreamCheckpoint>;
    return {
      version: 1,
      streamArn: parsed.streamArn ?? null,
      shards: parsed.shards ?? {},
      skipped: parsed.skipped ?? [],
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyCheckpoint(null);
    throw new Error(`Unreadable audit-stream checkpoint ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function writeCheckpoint(file: string | undefined, checkpoint: StreamCheckpoint): void {
  if (file === undefined) return;
  mkdirSync(path.dirname(file), { recursive: true });
  // Written aside, then renamed: a crash leaves the old or the new file, never half of one.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(checkpoint, null, 2) + '\n');
  renameSync(temporary, file);
}

/** A stream attribute value (binary as bytes) in the Lambda event's JSON form (binary as base64). */
export function toLambdaAttributeValue(value: StreamAttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttributeValue) };
  return value as LambdaAttributeValue;
}

function toLambdaImage(image: Record<string, StreamAttributeValue>): Record<string, LambdaAttributeValue> {
  const out: Record<string, LambdaAttributeValue> = {};
  for (const [name, value] of Object.entries(image)) out[name] = toLambdaAttributeValue(value);
  return out;
}

/** One GetRecords record as Lambda delivers it. */
export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const data = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource ?? 'aws:dynamodb',
    awsRegion: LOCAL_REGION,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: data.ApproximateCreationDateTime === undefined ? undefined : Math.floor(data.ApproximateCreationDateTime.getTime() / 1000),
      Keys: data.Keys && toLambdaImage(data.Keys),
      NewImage: data.NewImage && toLambdaImage(data.NewImage),
      OldImage: data.OldImage && toLambdaImage(data.OldImage),
      SequenceNumber: data.SequenceNumber,
      SizeBytes: data.SizeBytes,
      StreamViewType: data.StreamViewType,
    },
  };
}

async function latestStreamArn(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  return Table?.StreamSpecification?.StreamEnabled ? Table.LatestStreamArn : undefined;
}

/** Shards in an order where a parent comes before its children. */
function parentsFirst(shards: Shard[]): Shard[] {
  const byId = new Map(shards.map((shard) => [shard.ShardId as string, shard]));
  const ordered: Shard[] = [];
  const seen = new Set<string>();
  const visit = (shard: Shard) => {
    const id = shard.ShardId as string;
    if (seen.has(id)) return;
    seen.add(id);
    const parent = shard.ParentShardId ? byId.get(shard.ParentShardId) : undefined;
    if (parent) visit(parent);
    ordered.push(shard);
  };
  for (const shard of shards) visit(shard);
  return ordered;
}

/**
 * Starts reading the audit table's stream and feeding `handler`; resolves
 * once the stream is found. The first poll runs at once.
 *
 * @throws when the table does not exist or has no stream.
 */
export async function startAuditStreamArchiver(options: AuditStreamArchiverOptions): Promise<AuditStreamArchiver> {
  const log = options.logger ?? terminalObservability().logger;
  const pollMs = options.pollMs ?? 1000;
  const batchSize = options.batchSize ?? 100;
  const maxAttempts = options.maxAttempts ?? 5;
  const dynamo = localDynamoClient(options.dynamoEndpoint);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.dynamoEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });

  const firstArn = await latestStreamArn(dynamo, options.auditTableName).catch((error: unknown) => {
    dynamo.destroy();
    streams.destroy();
    throw error;
  });
  if (firstArn === undefined) {
    dynamo.destroy();
    streams.destroy();
    throw new Error(`Audit table ${options.auditTableName} has no stream: create it from AUDIT_TABLE (lambda/contract/tables.ts)`);
  }

  let checkpoint = readCheckpoint(options.checkpointFile);
  /** Open iterators by shard; dropped whenever the position must be re-read from the checkpoint. */
  const iterators = new Map<string, string>();
  /** Failed attempts by the sequence number a shard must resume at. */
  const attempts = new Map<string, number>();
  /** Shards waiting out a retry back-off, until this time (ms). */
  const retryAt = new Map<string, number>();

  const save = () => writeCheckpoint(options.checkpointFile, checkpoint);

  async function iteratorFor(streamArn: string, shardId: string): Promise<string | undefined> {
    const open = iterators.get(shardId);
    if (open) return open;
    const position = checkpoint.shards[shardId]?.sequenceNumber;
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand(
        position
          ? { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: position }
          : { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' },
      ),
    );
    return ShardIterator;
  }

  /** A batch failed at `index` (or threw: index 0): back off, or skip the record after `maxAttempts`. */
  function failedAt(shardId: string, records: DynamoDBRecord[], index: number): void {
    const failed = records[index].dynamodb?.SequenceNumber as string;
    const tries = (attempts.get(failed) ?? 0) + 1;
    iterators.delete(shardId);
    if (tries >= maxAttempts) {
      attempts.delete(failed);
      retryAt.delete(shardId);
      checkpoint.shards[shardId] = { sequenceNumber: failed };
      checkpoint.skipped.push({ shardId, sequenceNumber: failed, at: new Date().toISOString() });
      log.error('audit stream record skipped after repeated failures', { shard_id: shardId, sequence_number: failed, attempts: tries });
    } else {
      attempts.set(failed, tries);
      retryAt.set(shardId, Date.now() + Math.min(pollMs * 2 ** (tries - 1), MAX_BACKOFF_MS));
      if (index > 0) checkpoint.shards[shardId] = { sequenceNumber: records[index - 1].dynamodb?.SequenceNumber as string };
    }
    save();
  }

  /** Reads one shard until it has nothing new; returns how many records were handed over. */
  async function drainShard(streamArn: string, shardId: string): Promise<number> {
    let delivered = 0;
    for (;;) {
      if (stopped) return delivered;
      const iterator = await iteratorFor(streamArn, shardId);
      if (iterator === undefined) {
        checkpoint.shards[shardId] = { ...checkpoint.shards[shardId], finished: true };
        save();
        return delivered;
      }
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }));
      const records = (page.Records ?? []).map((record) => toLambdaRecord(record, streamArn));
      if (records.length === 0) {
        if (page.NextShardIterator) iterators.set(shardId, page.NextShardIterator);
        else {
          // A closed shard read to its end: its children may start.
          iterators.delete(shardId);
          checkpoint.shards[shardId] = { ...checkpoint.shards[shardId], finished: true };
          save();
        }
        return delivered;
      }
      delivered += records.length;

      let response: DynamoDBBatchResponse | void;
      try {
        response = await options.handler({ Records: records });
      } catch (error) {
        log.error('audit stream batch failed', { shard_id: shardId, records: records.length, ...errorField(error) });
        failedAt(shardId, records, 0);
        return delivered;
      }
      const failures = (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
      if (failures.length > 0) {
        const sequenceNumbers = records.map((record) => record.dynamodb?.SequenceNumber);
        const positions = failures.map((id) => (id ? sequenceNumbers.indexOf(id) : -1));
        // Like Lambda: an identifier that is not in the batch fails the whole batch.
        failedAt(shardId, records, positions.includes(-1) ? 0 : Math.min(...positions));
        return delivered;
      }
      for (const record of records) attempts.delete(record.dynamodb?.SequenceNumber as string);
      retryAt.delete(shardId);
      checkpoint.shards[shardId] = { sequenceNumber: records[records.length - 1].dynamodb?.SequenceNumber as string };
      save();
      if (page.NextShardIterator) iterators.set(shardId, page.NextShardIterator);
      else iterators.delete(shardId);
    }
  }

  /** One pass over every shard: how many records were handed over, and whether every shard was read to its end. */
  async function poll(): Promise<{ delivered: number; settled: boolean }> {
    const streamArn = await latestStreamArn(dynamo, options.auditTableName);
    if (streamArn === undefined) {
      log.warn('audit table has no stream; nothing to archive', { table: options.auditTableName });
      return { delivered: 0, settled: true };
    }
    if (checkpoint.streamArn !== streamArn) {
      // A new stream (first start, or the table was re-created): positions of another stream mean nothing.
      checkpoint = { ...emptyCheckpoint(streamArn), skipped: checkpoint.skipped };
      iterators.clear();
      save();
    }
    const shards: Shard[] = [];
    let startAfter: string | undefined;
    do {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: startAfter }));
      shards.push(...(StreamDescription?.Shards ?? []));
      startAfter = StreamDescription?.LastEvaluatedShardId;
    } while (startAfter);

    const present = new Set(shards.map((shard) => shard.ShardId));
    let delivered = 0;
    let settled = true;
    for (const shard of parentsFirst(shards)) {
      const shardId = shard.ShardId as string;
      if (checkpoint.shards[shardId]?.finished) continue;
      const parent = shard.ParentShardId;
      if (parent && present.has(parent) && !checkpoint.shards[parent]?.finished) continue;
      if ((retryAt.get(shardId) ?? 0) > Date.now()) continue;
      try {
        delivered += await drainShard(streamArn, shardId);
      } catch (error) {
        // The shard is read again from the checkpoint on the next poll.
        iterators.delete(shardId);
        settled = false;
        if (error instanceof TrimmedDataAccessException) {
          // DynamoDB Local also says this for a TRIM_HORIZON iterator taken while the shard was
          // empty; only a checkpointed position that the stream no longer holds (24 h) loses records.
          const position = checkpoint.shards[shardId]?.sequenceNumber;
          if (position !== undefined) {
            log.warn('audit stream position trimmed; reading the shard from its oldest record', { shard_id: shardId, sequence_number: position });
            checkpoint.shards[shardId] = {};
            save();
          }
        } else if (!(error instanceof ExpiredIteratorException || error instanceof ResourceNotFoundException)) {
          throw error;
        }
      }
    }
    return { delivered, settled };
  }

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();

  /** Polls one at a time: the timer loop and drain() never read a shard at once. */
  function serialPoll(): Promise<{ delivered: number; settled: boolean }> {
    const next = inFlight.then(poll);
    inFlight = next.catch(() => undefined);
    return next;
  }

  const loop = async () => {
    timer = undefined;
    if (stopped) return;
    try {
      await serialPoll();
    } catch (error) {
      log.warn('audit stream poll failed; retrying', errorField(error));
    }
    if (!stopped) {
      timer = setTimeout(() => void loop(), pollMs);
      timer.unref();
    }
  };
  timer = setTimeout(() => void loop(), 0);
  timer.unref();

  let stopping: Promise<void> | undefined;
  return {
    async drain(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (stopped) throw new Error('audit stream archiver is stopped');
        const { delivered, settled } = await serialPoll();
        const waiting = retryAt.size > 0;
        if (delivered === 0 && settled && !waiting) return;
        if (Date.now() > deadline) throw new Error(`audit stream not drained within ${timeoutMs} ms`);
        if (delivered === 0) await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, 100)));
      }
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        await inFlight;
        dynamo.destroy();
        streams.destroy();
      })();
      return stopping;
    },
  };
}
