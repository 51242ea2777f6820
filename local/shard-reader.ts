/**
 * One reader of the audit table's stream (local/audit-stream.ts runs it on a
 * timer): each poll reads every shard, parents before their children, from
 * the checkpoint's position, hands each batch to the handler, and moves the
 * checkpoint on; a failing batch backs its shard off, and a record that
 * keeps failing is skipped after `maxAttempts` and noted.
 */
import {
  DescribeStreamCommand,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
  type DynamoDBStreamsClient,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { errorField } from '../lambda/platform/observability';
import {
  emptyCheckpoint,
  latestStreamArn,
  parentsFirst,
  readCheckpoint,
  toLambdaRecord,
  writeCheckpoint,
  type StreamBatchHandler,
  type StreamCheckpoint,
} from './stream-records';

const MAX_BACKOFF_MS = 60_000;

/** What a reader is set to: the clients, the table, the handler, its pace and its limits. */
export interface ShardReaderSettings {
  readonly dynamo: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly auditTableName: string;
  readonly handler: StreamBatchHandler;
  readonly log: Logger;
  readonly pollMs: number;
  readonly batchSize: number;
  readonly maxAttempts: number;
  readonly checkpointFile?: string;
}

export class ShardReader {
  private checkpoint: StreamCheckpoint;
  /** Open iterators by shard; dropped whenever the position must be re-read from the checkpoint. */
  private readonly iterators = new Map<string, string>();
  /** Failed attempts by the sequence number a shard must resume at. */
  private readonly attempts = new Map<string, number>();
  /** Shards waiting out a retry back-off, until this time (ms). */
  private readonly retryAt = new Map<string, number>();
  /** Set once the archiver stops: a shard being read stops at its next batch. */
  stopped = false;

  constructor(private readonly settings: ShardReaderSettings) {
    this.checkpoint = readCheckpoint(settings.checkpointFile);
  }

  /** Whether a shard is waiting out a back-off. */
  get waiting(): boolean {
    return this.retryAt.size > 0;
  }

  /** One pass over every shard: how many records were handed over, and whether every shard was read to its end. */
  async poll(): Promise<{ delivered: number; settled: boolean }> {
    const streamArn = await latestStreamArn(this.settings.dynamo, this.settings.auditTableName);
    if (streamArn === undefined) {
      this.settings.log.warn('audit table has no stream; nothing to archive', { table: this.settings.auditTableName });
      return { delivered: 0, settled: true };
    }
    if (this.checkpoint.streamArn !== streamArn) {
      // A new stream (first start, or the table was re-created): positions of another stream mean nothing.
      this.checkpoint = { ...emptyCheckpoint(streamArn), skipped: this.checkpoint.skipped };
      this.iterators.clear();
      this.save();
    }
    const shards = await this.shardsOf(streamArn);
    const present = new Set(shards.map((shard) => shard.ShardId));
    let delivered = 0;
    let settled = true;
    for (const shard of parentsFirst(shards)) {
      const shardId = shard.ShardId as string;
      if (this.checkpoint.shards[shardId]?.finished) continue;
      const parent = shard.ParentShardId;
      if (parent && present.has(parent) && !this.checkpoint.shards[parent]?.finished) continue;
      if ((this.retryAt.get(shardId) ?? 0) > Date.now()) continue;
      try {
        delivered += await this.drainShard(streamArn, shardId);
      } catch (error) {
        // The shard is read again from the checkpoint on the next poll.
        this.iterators.delete(shardId);
        settled = false;
        this.recover(shardId, error);
      }
    }
    return { delivered, settled };
  }

  private save(): void {
    writeCheckpoint(this.settings.checkpointFile, this.checkpoint);
  }

  private async shardsOf(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let startAfter: string | undefined;
    do {
      const { StreamDescription } = await this.settings.streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: startAfter }));
      shards.push(...(StreamDescription?.Shards ?? []));
      startAfter = StreamDescription?.LastEvaluatedShardId;
    } while (startAfter);
    return shards;
  }

  /** After a shard's read failed: a trimmed position is read again from the oldest record; an error of another kind is thrown. */
  private recover(shardId: string, error: unknown): void {
    if (error instanceof TrimmedDataAccessException) {
      // DynamoDB Local also says this for a TRIM_HORIZON iterator taken while the shard was
      // empty; only a checkpointed position that the stream no longer holds (24 h) loses records.
      const position = this.checkpoint.shards[shardId]?.sequenceNumber;
      if (position !== undefined) {
        this.settings.log.warn('audit stream position trimmed; reading the shard from its oldest record', { shard_id: shardId, sequence_number: position });
        this.checkpoint.shards[shardId] = {};
        this.save();
      }
    } else if (!(error instanceof ExpiredIteratorException || error instanceof ResourceNotFoundException)) {
      throw error;
    }
  }

  private async iteratorFor(streamArn: string, shardId: string): Promise<string | undefined> {
    const open = this.iterators.get(shardId);
    if (open) return open;
    const position = this.checkpoint.shards[shardId]?.sequenceNumber;
    const { ShardIterator } = await this.settings.streams.send(
      new GetShardIteratorCommand(
        position
          ? { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: position }
          : { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' },
      ),
    );
    return ShardIterator;
  }

  /** A shard read to its end: its children may start. */
  private finish(shardId: string): void {
    this.iterators.delete(shardId);
    this.checkpoint.shards[shardId] = { ...this.checkpoint.shards[shardId], finished: true };
    this.save();
  }

  /** Reads one shard until it has nothing new; returns how many records were handed over. */
  private async drainShard(streamArn: string, shardId: string): Promise<number> {
    let delivered = 0;
    for (;;) {
      if (this.stopped) return delivered;
      const iterator = await this.iteratorFor(streamArn, shardId);
      if (iterator === undefined) {
        this.finish(shardId);
        return delivered;
      }
      const page = await this.settings.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: this.settings.batchSize }));
      const records = (page.Records ?? []).map((record) => toLambdaRecord(record, streamArn));
      if (records.length === 0) {
        if (page.NextShardIterator) this.iterators.set(shardId, page.NextShardIterator);
        else this.finish(shardId);
        return delivered;
      }
      delivered += records.length;
      if (!(await this.handOver(shardId, records))) return delivered;
      if (page.NextShardIterator) this.iterators.set(shardId, page.NextShardIterator);
      else this.iterators.delete(shardId);
    }
  }

  /** Hands a batch to the handler; whether it all succeeded (the checkpoint moved past it). */
  private async handOver(shardId: string, records: DynamoDBRecord[]): Promise<boolean> {
    let response: Awaited<ReturnType<StreamBatchHandler>>;
    try {
      response = await this.settings.handler({ Records: records });
    } catch (error) {
      this.settings.log.error('audit stream batch failed', { shard_id: shardId, records: records.length, ...errorField(error) });
      this.failedAt(shardId, records, 0);
      return false;
    }
    const failures = (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
    if (failures.length > 0) {
      const sequenceNumbers = records.map((record) => record.dynamodb?.SequenceNumber);
      const positions = failures.map((id) => (id ? sequenceNumbers.indexOf(id) : -1));
      // Like Lambda: an identifier that is not in the batch fails the whole batch.
      this.failedAt(shardId, records, positions.includes(-1) ? 0 : Math.min(...positions));
      return false;
    }
    for (const record of records) this.attempts.delete(record.dynamodb?.SequenceNumber as string);
    this.retryAt.delete(shardId);
    this.checkpoint.shards[shardId] = { sequenceNumber: records[records.length - 1].dynamodb?.SequenceNumber as string };
    this.save();
    return true;
  }

  /** A batch failed at `index` (or threw: index 0): back off, or skip the record after `maxAttempts`. */
  private failedAt(shardId: string, records: DynamoDBRecord[], index: number): void {
    const failed = records[index].dynamodb?.SequenceNumber as string;
    const tries = (this.attempts.get(failed) ?? 0) + 1;
    this.iterators.delete(shardId);
    if (tries >= this.settings.maxAttempts) {
      this.attempts.delete(failed);
      this.retryAt.delete(shardId);
      this.checkpoint.shards[shardId] = { sequenceNumber: failed };
      this.checkpoint.skipped.push({ shardId, sequenceNumber: failed, at: new Date().toISOString() });
      this.settings.log.error('audit stream record skipped after repeated failures', { shard_id: shardId, sequence_number: failed, attempts: tries });
    } else {
      this.attempts.set(failed, tries);
      this.retryAt.set(shardId, Date.now() + Math.min(this.settings.pollMs * 2 ** (tries - 1), MAX_BACKOFF_MS));
      if (index > 0) this.checkpoint.shards[shardId] = { sequenceNumber: records[index - 1].dynamodb?.SequenceNumber as string };
    }
    this.save();
  }
}
