/**
 * The stream's records as Lambda hands them over, and the reader's
 * checkpoint: a stream-batch handler's type, a GetRecords record turned into
 * the Lambda event's record (binary as base64), the checkpoint file (written
 * aside, then renamed), the table's current stream and its shards in
 * parent-first order.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type AttributeValue as StreamAttributeValue, type Shard, type _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue as LambdaAttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_REGION } from './dynamodb-local';

/** A stream-batch handler: the archive handler, or anything shaped like it. */
export type StreamBatchHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
/** What the checkpoint file holds. */
export interface StreamCheckpoint {
  version: 1;
  /** The stream the positions belong to; a new stream (table re-created) starts over. */
  streamArn: string | null;
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
  /** Records given up on after `maxAttempts` (Lambda: the on-failure destination). */
  skipped: Array<{ shardId: string; sequenceNumber: string; at: string }>;
}

export function emptyCheckpoint(streamArn: string | null): StreamCheckpoint {
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

export function writeCheckpoint(file: string | undefined, checkpoint: StreamCheckpoint): void {
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

export async function latestStreamArn(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  return Table?.StreamSpecification?.StreamEnabled ? Table.LatestStreamArn : undefined;
}

/** Shards in an order where a parent comes before its children. */
export function parentsFirst(shards: Shard[]): Shard[] {
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
