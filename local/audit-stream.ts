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
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from '@aws-lambda-powertools/logger';
import { errorField } from '../lambda/platform/observability';
import { terminalObservability } from './terminal-observability';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localDynamoClient } from './dynamodb-local';
import { latestStreamArn, type StreamBatchHandler } from './stream-records';
import { ShardReader } from './shard-reader';

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

/**
 * Starts reading the audit table's stream and feeding `handler`; resolves
 * once the stream is found. The first poll runs at once.
 *
 * @throws when the table does not exist or has no stream.
 */
export async function startAuditStreamArchiver(options: AuditStreamArchiverOptions): Promise<AuditStreamArchiver> {
  const log = options.logger ?? terminalObservability().logger;
  const pollMs = options.pollMs ?? 1000;
  const dynamo = localDynamoClient(options.dynamoEndpoint);
  const streams = new DynamoDBStreamsClient({ endpoint: options.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const close = () => {
    dynamo.destroy();
    streams.destroy();
  };
  const firstArn = await latestStreamArn(dynamo, options.auditTableName).catch((error: unknown) => {
    close();
    throw error;
  });
  if (firstArn === undefined) {
    close();
    throw new Error(`Audit table ${options.auditTableName} has no stream: create it from AUDIT_TABLE (lambda/contract/tables.ts)`);
  }
  const reader = new ShardReader({
    dynamo,
    streams,
    log,
    pollMs,
    auditTableName: options.auditTableName,
    handler: options.handler,
    batchSize: options.batchSize ?? 100,
    maxAttempts: options.maxAttempts ?? 5,
    checkpointFile: options.checkpointFile,
  });
  return runPolls(reader, pollMs, log, close);
}

/** Polls `reader` every `pollMs` (one poll at a time: the timer loop and drain() never read a shard at once) until stopped. */
function runPolls(reader: ShardReader, pollMs: number, log: Logger, close: () => void): AuditStreamArchiver {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  const serialPoll = (): Promise<{ delivered: number; settled: boolean }> => {
    const next = inFlight.then(() => reader.poll());
    inFlight = next.catch(() => undefined);
    return next;
  };
  const loop = async () => {
    timer = undefined;
    if (reader.stopped) return;
    try {
      await serialPoll();
    } catch (error) {
      log.warn('audit stream poll failed; retrying', errorField(error));
    }
    if (!reader.stopped) {
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
        if (reader.stopped) throw new Error('audit stream archiver is stopped');
        const { delivered, settled } = await serialPoll();
        if (delivered === 0 && settled && !reader.waiting) return;
        if (Date.now() > deadline) throw new Error(`audit stream not drained within ${timeoutMs} ms`);
        if (delivered === 0) await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, 100)));
      }
    },
    stop() {
      stopping ??= (async () => {
        reader.stopped = true;
        if (timer) clearTimeout(timer);
        await inFlight;
        close();
      })();
      return stopping;
    },
  };
}
