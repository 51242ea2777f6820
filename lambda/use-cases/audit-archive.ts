/**
 * The audit archive: turns the audit table's stream records into gzip JSON
 * Lines objects in the archive bucket (or a local folder).
 *
 * Object layout: one object per audit event,
 *
 *     audit/year=YYYY/month=MM/day=DD/<sequence number>-<event id>.jsonl.gz
 *
 * partitioned by the event's `occurred_at` (UTC) and named from the stream
 * record's sequence number plus the event's id. Both come from the record
 * itself, so the name of a record's object never depends on which batch
 * delivered it.
 *
 * Why one object per event rather than one per batch: Lambda does not replay
 * a batch as it was. With `ReportBatchItemFailures` it resumes from the
 * LOWEST failed sequence number, so the records after a failed one come back
 * inside a different batch (with possibly more records behind them, and
 * split differently again under `BisectBatchOnFunctionError`). An object named
 * after a batch's first and last sequence numbers would then hold those
 * records a second time; an object named after the record itself is simply
 * written again under the same name. So:
 * - a replayed or re-split batch yields no duplicate line, whatever its
 *   boundaries;
 * - a poison record is reported in `batchItemFailures` while every valid
 *   record of the batch, before and after it, is archived in the same call.
 * Audit events are rare (key management, not key use), so the object count
 * stays small. The event id in the name keeps names unique even where
 * sequence numbers restart (a DynamoDB Local store that was wiped).
 *
 * Writes are write-once: S3 `PutObject` with `If-None-Match: *` (a replay's
 * 412 means "already archived"), and the folder writer links a finished
 * temporary file into place. Object bytes are deterministic: the line is the
 * event re-serialised in the schema's field order and gzip writes no mtime.
 *
 * Only INSERT records are archived: the audit table is append-only, so
 * MODIFY does not happen, and REMOVE is the table's TTL expiring an item
 * whose archived copy is kept by the bucket's own retention.
 *
 * No line carries a key value or a value's hash: the schema
 * (`parseAuditEvent`) admits only the documented fields, and any string that
 * still has the shape of an issued value or of a SHA-256 hash (say a value
 * pasted into a deletion reason) is redacted before it is written. The
 * writers redact the same way before a record is hashed into its team's
 * chain, so a chained record archives unchanged; only the chain's own
 * `prev_hash` and `hash` (digests of records) keep their hex.
 */
import { gzipSync } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AuditEvent } from '../domain/audit-events';
import { parseAuditEvent, type AuditEventProblem } from '../domain/audit-event-schema';
import type { ArchiveWriter } from '../domain/archive-writer';
import { errorField, signals, type Observability } from '../platform/observability';
import { redactStrings } from '../platform/redaction';
import { CHAIN_HASHES } from '../domain/audit-chain';
import { ARCHIVE_PREFIX } from '../contract/archive';

/** Archived objects end with this: gzip-compressed JSON Lines. */
export const ARCHIVE_SUFFIX = '.jsonl.gz';

/** Stream sequence numbers are decimal strings (up to 40 digits in AWS). */
const SEQUENCE_NUMBER = /^[0-9]{1,64}$/;

// ---------------------------------------------------------------------------
// Pure parts: record → event → line → object.

/** `audit/year=YYYY/month=MM/day=DD/` of an instant, in UTC. */
export function partitionOf(occurredAt: string): string {
  const at = new Date(occurredAt);
  if (Number.isNaN(at.getTime())) throw new Error('occurred_at is not a valid instant');
  const year = String(at.getUTCFullYear()).padStart(4, '0');
  const month = String(at.getUTCMonth() + 1).padStart(2, '0');
  const day = String(at.getUTCDate()).padStart(2, '0');
  return `${ARCHIVE_PREFIX}year=${year}/month=${month}/day=${day}/`;
}

/** The object key of one archived event. */
export function archiveObjectKey(event: Pick<AuditEvent, 'occurred_at' | 'event_id'>, sequenceNumber: string): string {
  if (!SEQUENCE_NUMBER.test(sequenceNumber)) throw new Error('sequence number is not a decimal string');
  return `${partitionOf(event.occurred_at)}${sequenceNumber}-${event.event_id}${ARCHIVE_SUFFIX}`;
}

/** One JSON Lines line (with its newline) for an event. */
export function archiveLine(event: AuditEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/**
 * Gzip with a fixed header: zlib writes mtime 0 and no file name, so the
 * same text always gives the same bytes (on one OS; the header's OS byte is
 * the platform's).
 */
export function gzipDeterministic(text: string): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
}

/** What to do with one stream record. */
export type RecordPlan =
  | { kind: 'ignore'; eventName: string }
  | { kind: 'reject'; sequenceNumber: string; reason: string; problems?: AuditEventProblem[] }
  | { kind: 'archive'; sequenceNumber: string; key: string; body: Buffer; event: AuditEvent; redactedPaths: string[] };

/**
 * Decides what one stream record becomes: ignored (not an INSERT), rejected
 * (a poison record: no image, not an audit event), or an object to write.
 *
 * @throws when the record has no sequence number: it cannot be reported
 * item by item, so the whole batch must fail.
 */
export function planRecord(record: DynamoDBRecord): RecordPlan {
  const eventName = record.eventName ?? 'UNKNOWN';
  if (eventName !== 'INSERT') return { kind: 'ignore', eventName };
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (sequenceNumber === undefined || sequenceNumber === '') throw new Error('stream record without a sequence number');
  if (!SEQUENCE_NUMBER.test(sequenceNumber)) return { kind: 'reject', sequenceNumber, reason: 'malformed sequence number' };

  const image = record.dynamodb?.NewImage;
  if (image === undefined || image === null) return { kind: 'reject', sequenceNumber, reason: 'no NewImage' };
  let item: Record<string, unknown>;
  try {
    // The Lambda event's attribute values are JSON (binary as base64 text);
    // audit items hold no binary attributes, so the shapes agree.
    item = unmarshall(image as unknown as Record<string, AttributeValue>);
  } catch (error) {
    return { kind: 'reject', sequenceNumber, reason: `NewImage is not a DynamoDB item (${(error as Error).name})` };
  }
  const parsed = parseAuditEvent(item);
  if (!parsed.ok) return { kind: 'reject', sequenceNumber, reason: 'not an audit event', problems: parsed.problems };

  // The chain's own hashes are digests of records, not of values: kept as they are (the rest is as the writer already redacted it).
  const { value: event, redactedPaths } = redactStrings(parsed.event, CHAIN_HASHES);
  return {
    kind: 'archive',
    sequenceNumber,
    key: archiveObjectKey(event, sequenceNumber),
    body: gzipDeterministic(archiveLine(event)),
    event,
    redactedPaths,
  };
}

// ---------------------------------------------------------------------------
// One stream batch.

/** How many objects one invocation writes at a time. */
export const WRITE_CONCURRENCY = 16;

async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(runners);
}

/**
 * Archives one DynamoDB stream batch: every INSERT that is an audit event
 * becomes its own object; other records are ignored. Returns the sequence
 * numbers of the records that were not archived (poison records, failed
 * writes) as `batchItemFailures`, in stream order.
 */
export async function archiveStreamBatch(
  event: DynamoDBStreamEvent,
  writer: ArchiveWriter,
  observe: Observability,
  now: () => number = Date.now,
): Promise<DynamoDBBatchResponse> {
  const log = observe.logger;
  const plans = event.Records.map(planRecord);
  const failed = new Set<string>();
  let ignored = 0;

  for (const plan of plans) {
    if (plan.kind === 'ignore') ignored++;
    if (plan.kind !== 'reject') continue;
    failed.add(plan.sequenceNumber);
    // The reason and the problems' paths and codes only: never the image.
    log.error('audit record rejected', { sequence_number: plan.sequenceNumber, reason: plan.reason, problems: plan.problems });
  }

  const writes = plans.filter((plan): plan is Extract<RecordPlan, { kind: 'archive' }> => plan.kind === 'archive');
  let archived = 0;
  await forEachLimited(writes, WRITE_CONCURRENCY, async (plan) => {
    if (plan.redactedPaths.length > 0) {
      log.warn('audit event held secret-shaped text; redacted', {
        sequence_number: plan.sequenceNumber,
        event_id: plan.event.event_id,
        paths: plan.redactedPaths,
      });
    }
    try {
      await writer.put(plan.key, plan.body);
      archived++;
    } catch (error) {
      failed.add(plan.sequenceNumber);
      log.error('audit object write failed', { sequence_number: plan.sequenceNumber, object_key: plan.key, ...errorField(error) });
    }
  });

  const batchItemFailures = plans
    .filter((plan): plan is Exclude<RecordPlan, { kind: 'ignore' }> => plan.kind !== 'ignore' && failed.has(plan.sequenceNumber))
    .map((plan) => ({ itemIdentifier: plan.sequenceNumber }));
  // Lag: from the oldest archived event's occurrence to now (its object is written by now).
  const occurred = writes.map((plan) => Date.parse(plan.event.occurred_at)).filter((at) => Number.isFinite(at));
  const lagSeconds = occurred.length > 0 ? Math.max(0, Math.round((now() - Math.min(...occurred)) / 1000)) : undefined;
  if (lagSeconds !== undefined) signals.archiveLag(observe, lagSeconds);
  log.info('audit batch archived', {
    lag_seconds: lagSeconds,
    location: writer.location,
    records: event.Records.length,
    archived,
    ignored,
    failed: batchItemFailures.length,
  });
  return { batchItemFailures };
}
