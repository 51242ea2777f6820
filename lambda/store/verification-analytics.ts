/**
 * Verification analytics' reads and rollup (docs/analytics.md).
 *
 * Reads: a team's counts by minute come from its minute records (kept 48 h);
 * by hour, from the minute records for the last 25 hours and from the hour
 * rollups before; by day, from the day rollups for days that ended before
 * that, and from hours for the rest.
 *
 * Rollup (`rollUp`, every few minutes: the rollup function in AWS, a timer
 * of `npm start` locally): for each hour marked and ended at least
 * ROLLUP_DELAY_MS ago, the hour's rollup is recomputed from its minute
 * records and its day's from the day's hour rollups, each written whole;
 * the mark is then removed only if nobody marked the hour again meanwhile
 * (a record that arrived late), else the next run recomputes it. Running it
 * twice, or two at once, writes the same items.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE } from '../contract/tables';
import type { OperationsOf } from '../contract/store-operations';
import { DAY_MS, HOUR_MS, MINUTE_MS, addCounts, bucketStart, type Granularity } from '../domain/verification-tally';
import { epochSeconds } from '../platform/clock';
import type { StoreTables } from './transactions';
import { queryAll } from './query-all';
import { DIRTY_HOUR, DIRTY_HOURS_PARTITION, dirtyBefore } from './entities/dirty-hour';
import { VERIFICATION_MINUTE, minuteRange } from './entities/verification-minute';
import { VERIFICATION_ROLLUP, rollupRange, type RollupSize } from './entities/verification-rollup';

/** How long after its end an hour is rolled up (records still being written by a batch under way). */
export const ROLLUP_DELAY_MS = 2 * MINUTE_MS;
/** Before this long ago (whole hours), hours are read from their rollups. */
export const MINUTE_RECORDS_READ_MS = 25 * HOUR_MS;
const KEPT_MS: Record<RollupSize, number> = { hour: 92 * DAY_MS, day: 802 * DAY_MS };

export interface RollUpOptions {
  /** Also the hours still running (`npm run analytics -- --refresh`). */
  readonly openHours?: boolean;
  /** Each hour rolled up, with its counts (the Parquet export, domain/analytics-export.ts). */
  readonly exported?: (teamId: string, hour: number, counts: Readonly<Record<string, number>>) => Promise<void>;
}

/** A bucket's counts by entry name (domain/verification-tally.ts `entryName`). */
export type BucketCounts = Map<number, Record<string, number>>;

/** `into` with `buckets` added, each into the bucket of `granularity` that holds it. */
function merged(into: BucketCounts, buckets: Iterable<readonly [number, Readonly<Record<string, number>>]>, granularity: Granularity): BucketCounts {
  for (const [at, counts] of buckets) {
    const start = bucketStart(at, granularity);
    into.set(start, addCounts(into.get(start) ?? {}, counts));
  }
  return into;
}

/** The buckets' counts added up. */
function sumOf(buckets: Iterable<Readonly<Record<string, number>>>): Record<string, number> {
  let sum: Record<string, number> = {};
  for (const counts of buckets) sum = addCounts(sum, counts);
  return sum;
}

export class VerificationAnalytics {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** A team's counts per minute from `from` to `to` (minute starts, epoch ms). */
  async minutes(teamId: string, from: number, to: number): Promise<BucketCounts> {
    const records = await this.between(minuteRange(teamId, from, to), (items) => VERIFICATION_MINUTE.readAll(items));
    // A minute has a record per process and batch: added up.
    return merged(
      new Map(),
      records.map((record) => [record.at, record.c]),
      'minute',
    );
  }

  /** A team's rollups of `size` starting from `from` to `to` (epoch ms). */
  async rollups(teamId: string, size: RollupSize, from: number, to: number): Promise<BucketCounts> {
    const rollups = await this.between(rollupRange(teamId, size, from, to), (items) => VERIFICATION_ROLLUP.readAll(items));
    return new Map(rollups.map((rollup) => [rollup.at, rollup.c]));
  }

  /** Every item of a team's analytics partition whose sort key is within the range. */
  private between<T>(range: { pk: string; low: string; high: string }, read: (items: Record<string, unknown>[] | undefined) => T[]): Promise<T[]> {
    return queryAll(
      this.tables.db,
      {
        TableName: this.tables.keyTableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': range.pk, ':low': range.low, ':high': range.high },
      },
      read,
    );
  }

  /** A team's counts per hour from `from` to `to` (hour starts), exact to the minute records for the last 25 hours at `now`. */
  async hours(teamId: string, from: number, to: number, now: number): Promise<BucketCounts> {
    const recent = bucketStart(now - MINUTE_RECORDS_READ_MS, 'hour');
    const buckets: BucketCounts = from < recent ? await this.rollups(teamId, 'hour', from, Math.min(to, recent - HOUR_MS)) : new Map();
    if (to < recent) return buckets;
    return merged(buckets, await this.minutes(teamId, Math.max(from, recent), to + HOUR_MS - MINUTE_MS), 'hour');
  }

  /** A team's counts per UTC day from `from` to `to` (day starts): day rollups for days before the last 25 hours, hours for the rest. */
  async days(teamId: string, from: number, to: number, now: number): Promise<BucketCounts> {
    const recentDay = bucketStart(bucketStart(now - MINUTE_RECORDS_READ_MS, 'hour'), 'day');
    const buckets: BucketCounts = from < recentDay ? await this.rollups(teamId, 'day', from, Math.min(to, recentDay - DAY_MS)) : new Map();
    if (to < recentDay) return buckets;
    return merged(buckets, await this.hours(teamId, Math.max(from, recentDay), to + DAY_MS - HOUR_MS, now), 'day');
  }

  /**
   * `rollUpVerificationCounts`: every hour marked and ended ROLLUP_DELAY_MS
   * before `now` (with `openHours`, every hour marked so far: its mark stays
   * while it runs); `exported` is handed each hour's counts before its mark
   * goes, so a failed export is retried with the hour. How many were rolled up.
   */
  async rollUp(now: number, options: RollUpOptions = {}): Promise<{ hours: number; again: number }> {
    const marks = await queryAll(
      this.tables.db,
      {
        TableName: this.tables.keyTableName,
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        ExpressionAttributeValues: { ':pk': DIRTY_HOURS_PARTITION, ':before': dirtyBefore(options.openHours ? now + 1 : now - ROLLUP_DELAY_MS - HOUR_MS + 1) },
      },
      (items) => DIRTY_HOUR.readAll(items),
    );
    let again = 0;
    for (const mark of marks) {
      const counts = await this.rollUpHour(mark.team_id, mark.at);
      await options.exported?.(mark.team_id, mark.at, counts);
      if (mark.at + HOUR_MS + ROLLUP_DELAY_MS > now) continue; // still running (openHours): marked until it has ended
      try {
        await this.tables.db.send(
          new DeleteCommand({
            TableName: this.tables.keyTableName,
            Key: DIRTY_HOUR.key(mark.team_id, mark.at),
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: { ':v': mark.v },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        again += 1; // marked again while rolled up: the next run recomputes it
      }
    }
    return { hours: marks.length, again };
  }

  /** The hour's rollup and its day's, recomputed; the hour's counts. */
  private async rollUpHour(teamId: string, hour: number): Promise<Record<string, number>> {
    const minutes = await this.minutes(teamId, hour, hour + HOUR_MS - MINUTE_MS);
    const counts = sumOf(minutes.values());
    await this.putRollup(teamId, 'hour', hour, counts);
    const day = bucketStart(hour, 'day');
    const hours = await this.rollups(teamId, 'hour', day, day + DAY_MS - HOUR_MS);
    await this.putRollup(teamId, 'day', day, sumOf(hours.values()));
    return counts;
  }

  private async putRollup(teamId: string, size: RollupSize, start: number, counts: Record<string, number>): Promise<void> {
    await this.tables.db.send(
      new PutCommand({
        TableName: this.tables.keyTableName,
        Item: {
          ...VERIFICATION_ROLLUP.key(teamId, size, start),
          entity: 'verification-rollup',
          team_id: teamId,
          at: start,
          c: counts,
          [TTL_ATTRIBUTE]: epochSeconds(new Date(start + KEPT_MS[size])),
        },
      }),
    );
  }
}

/** Each public method of VerificationAnalytics and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const VERIFICATION_ANALYTICS_OPERATIONS = {
  minutes: 'readVerificationCounts',
  rollups: 'readVerificationCounts',
  hours: 'readVerificationCounts',
  days: 'readVerificationCounts',
  rollUp: 'rollUpVerificationCounts',
} as const satisfies OperationsOf<VerificationAnalytics>;
