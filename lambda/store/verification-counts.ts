/**
 * Verification analytics' counting (docs/analytics.md): the counts a
 * process holds, and their write.
 *
 * `count` adds a verification in memory and sends nothing. The counts are
 * written as one minute record per team and minute (entities/verification-counts.ts)
 * when the oldest of them is `flushAfterMs` old (at the next count, or by a
 * timer that does not keep the process alive), before a read of the
 * analytics in this process, and at shutdown (`flush`). A batch's records
 * are written under its own id, so a write that is retried writes the same
 * items; a batch whose write failed is kept as it was and sent again with
 * the next one. After the records, the hours they fall in are marked for
 * the rollup (analytics-rollup.ts): once per team and hour by each process,
 * and again for a record that arrives once its hour has ended.
 *
 * What a process that dies holds unwritten is lost: at most `flushAfterMs`
 * of its counts (20 s by default), plus a batch whose write was failing.
 * Counts a frozen sandbox held for more than a day are dropped, not written
 * (their minute records would outlive none of the others of their hour).
 */
import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE } from '../contract/tables';
import type { OperationsOf } from '../contract/store-operations';
import { epochSeconds, type Clock } from '../platform/clock';
import { DAY_MS, HOUR_MS, VerificationTally, bucketStart, type CountedVerification, type MinuteCounts } from '../domain/verification-tally';
import type { StoreTables } from './transactions';
import { DIRTY_HOUR } from './entities/dirty-hour';
import { VERIFICATION_MINUTE } from './entities/verification-minute';

export interface CountSettings {
  /** How old the oldest count held may get before it is written (ms). */
  readonly flushAfterMs: number;
}

export const DEFAULT_COUNT_SETTINGS: CountSettings = { flushAfterMs: 20_000 };

/** Entries per minute record: well under DynamoDB's 400 KB an item (an entry is under 120 bytes). */
const ENTRIES_PER_RECORD = 1_000;
/** How long minute records are kept (the route reads them for the last 25 hours). */
export const MINUTE_RECORD_KEPT_MS = 2 * DAY_MS;
/** Records of failed batches a process keeps for the next write (memory bound while writes fail). */
const MAX_UNSENT_RECORDS = 10_000;
/** A marked hour nobody rolled up is forgotten after this long. */
const MARK_KEPT_MS = 3 * DAY_MS;

interface MinuteRecord {
  readonly teamId: string;
  readonly minute: number;
  readonly batchId: string;
  readonly part: number;
  readonly counts: Record<string, number>;
}

/** The records of a batch: one per team and minute (split past ENTRIES_PER_RECORD entries). */
function recordsOf(taken: readonly MinuteCounts[], batchId: string): MinuteRecord[] {
  return taken.flatMap(({ teamId, minute, counts }) => {
    const entries = Object.entries(counts);
    const parts: MinuteRecord[] = [];
    for (let part = 0; part * ENTRIES_PER_RECORD < entries.length; part++) {
      const slice = entries.slice(part * ENTRIES_PER_RECORD, (part + 1) * ENTRIES_PER_RECORD);
      parts.push({ teamId, minute, batchId, part, counts: Object.fromEntries(slice) });
    }
    return parts;
  });
}

/** The verifications counts hold, all entries together. */
const verificationsIn = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((sum, n) => sum + n, 0);

export class VerificationCounts {
  private readonly tally: VerificationTally;
  private unsent: MinuteRecord[] = [];
  private writing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Team and hour pairs this process has marked for the rollup. */
  private readonly marked = new Set<string>();
  /** Counts dropped: held by a frozen sandbox for more than a day, or past MAX_UNSENT_RECORDS while writes failed. */
  dropped = 0;

  constructor(
    private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>,
    private readonly clock: Clock,
    readonly settings: CountSettings = DEFAULT_COUNT_SETTINGS,
  ) {
    this.tally = new VerificationTally(settings.flushAfterMs);
  }

  /** Counts one verification now. Sends nothing itself; may start the write of what is held (not awaited: its failure keeps the counts). */
  count(counted: CountedVerification): void {
    const now = this.clock.now().getTime();
    if (this.tally.due(now)) this.writeSoon();
    this.tally.add(counted, now);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.writeSoon();
      }, this.settings.flushAfterMs);
      this.timer.unref?.();
    }
  }

  /** Counts held and not written yet (taken batches under way and failed ones included). */
  held(): number {
    return this.tally.size() + this.unsent.reduce((sum, record) => sum + verificationsIn(record.counts), 0);
  }

  /** Writes everything held; rejects when the write fails (the counts are kept for the next one). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing.catch(() => undefined);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.clock.now().getTime();
    const fresh = this.tally.take().filter((counts) => {
      if (counts.minute >= now - DAY_MS) return true;
      this.dropped += verificationsIn(counts.counts);
      return false;
    });
    const records = [...this.unsent, ...recordsOf(fresh, randomBytes(9).toString('base64url'))];
    this.unsent = [];
    if (records.length === 0) return;
    this.writing = this.write(records).catch((error: unknown) => {
      this.keepUnsent(records);
      throw error;
    });
    try {
      await this.writing;
    } finally {
      this.writing = undefined;
    }
  }

  /** Starts a write of what is held, unless one is already waiting to start (a burst of counts while a write is slow starts one more, not one each). */
  private writeSoon(): void {
    if (this.queued) return;
    this.queued = this.flush()
      .catch(() => undefined)
      .finally(() => {
        this.queued = undefined;
      });
  }

  /** Keeps a failed batch for the next write; past MAX_UNSENT_RECORDS (writes failing for long), the oldest are dropped and counted. */
  private keepUnsent(records: readonly MinuteRecord[]): void {
    this.unsent.push(...records);
    while (this.unsent.length > MAX_UNSENT_RECORDS) {
      const gone = this.unsent.shift() as MinuteRecord;
      this.dropped += verificationsIn(gone.counts);
    }
  }

  /** `countVerifications`: the records, then the marks of their hours. */
  private async write(records: readonly MinuteRecord[]): Promise<void> {
    await Promise.all(records.map((record) => this.put(record)));
    const now = this.clock.now().getTime();
    const hours = new Map<string, { teamId: string; hour: number }>();
    for (const { teamId, minute } of records) {
      const hour = bucketStart(minute, 'hour');
      const name = `${teamId}|${hour}`;
      // Once per process and hour while the hour runs; always once it has ended (the rollup may have run without this record).
      if (this.marked.has(name) && hour + HOUR_MS > now) continue;
      hours.set(name, { teamId, hour });
    }
    await Promise.all([...hours.values()].map(({ teamId, hour }) => this.mark(teamId, hour)));
    for (const name of hours.keys()) this.marked.add(name);
    for (const name of this.marked) if (Number(name.split('|')[1]) + HOUR_MS <= now - HOUR_MS) this.marked.delete(name);
  }

  /** A minute record, written whole (an UpdateItem that sets every attribute: the functions that count need no PutItem grant). */
  private async put({ teamId, minute, batchId, part, counts }: MinuteRecord): Promise<void> {
    await this.tables.db.send(
      new UpdateCommand({
        TableName: this.tables.keyTableName,
        Key: VERIFICATION_MINUTE.key(teamId, minute, batchId, part),
        UpdateExpression: 'SET entity = :entity, team_id = :team, #at = :at, c = :c, #ttl = :ttl',
        ExpressionAttributeNames: { '#at': 'at', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: {
          ':entity': 'verification-minute',
          ':team': teamId,
          ':at': minute,
          ':c': counts,
          ':ttl': epochSeconds(new Date(minute + MINUTE_RECORD_KEPT_MS)),
        },
      }),
    );
  }

  private async mark(teamId: string, hour: number): Promise<void> {
    await this.tables.db.send(
      new UpdateCommand({
        TableName: this.tables.keyTableName,
        Key: DIRTY_HOUR.key(teamId, hour),
        UpdateExpression: 'SET entity = :entity, team_id = :team, #at = :at, #ttl = :ttl ADD v :one',
        ExpressionAttributeNames: { '#at': 'at', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: {
          ':entity': 'verification-dirty-hour',
          ':team': teamId,
          ':at': hour,
          ':ttl': epochSeconds(new Date(hour + MARK_KEPT_MS)),
          ':one': 1,
        },
      }),
    );
  }
}

/** Each public method of VerificationCounts and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const VERIFICATION_COUNTS_OPERATIONS = {
  count: 'countVerifications',
  held: [],
  flush: 'countVerifications',
} as const satisfies OperationsOf<VerificationCounts>;
