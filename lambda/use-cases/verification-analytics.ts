/**
 * A team's verification analytics (docs/analytics.md): counts per minute,
 * hour or day, in total or by outcome, scope and key (the busiest `limit`
 * keys), for one key or one identity or the whole team.
 *
 * Minute counts are kept 24 hours, hour counts 90 days, day counts 800 days;
 * a range that starts before what its granularity keeps, or whose rows would
 * be more than 1,000, is refused (400); a test key reads one of its keys
 * only (403 for the team's). A key or identity of another team is
 * answered as an unknown one (404); a deleted key's counts stay readable, by
 * its tombstone for 90 days, then by the counts themselves (under the team:
 * a range where it has none answers 404, as for an unknown id).
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { BUCKET_MS, DAY_MS, bucketStart, entryOf, type CountedVerification, type Granularity, type Outcome } from '../domain/verification-tally';
import type { VerifiedKey } from '../domain/model';
import { assertOwnTeam, notFound } from '../policy/authorization';
import type { AnalyticsPort, ClockPort, CountsPort, IdentitiesPort, KeysPort } from '../store/ports';
import type { BucketCounts } from '../store/verification-analytics';
import { keptKey } from './read-keys';
import { ttlExpired } from '../domain/key-lifetime';
import { ownIdentity } from './identities';

export type GroupBy = 'outcome' | 'scope' | 'key';

export interface AnalyticsRequest {
  team_id: string;
  key_id?: string;
  identity_id?: string;
  from: string;
  to: string;
  granularity: Granularity;
  group_by?: GroupBy[];
  limit: number;
}

export interface AnalyticsRow {
  start: string;
  outcome?: Outcome;
  scope?: string | null;
  key_id?: string;
  identity_id?: string | null;
  count: number;
}

/** A key the rows name (grouped by key): its name and whether it is deleted (a key whose tombstone is gone: name null). */
export interface NamedKey {
  key_id: string;
  name: string | null;
  deleted: boolean;
}

export interface AnalyticsAnswer {
  rows: AnalyticsRow[];
  meta: { granularity: Granularity; from: string; to: string; group_by: GroupBy[]; keys?: NamedKey[] };
}

/** How far back each granularity is kept. */
export const KEPT: Record<Granularity, { ms: number; words: string }> = {
  minute: { ms: DAY_MS, words: '24 hours' },
  hour: { ms: 90 * DAY_MS, words: '90 days' },
  day: { ms: 800 * DAY_MS, words: '800 days' },
};
export const MAX_ROWS = 1_000;

export type AnalyticsPorts = AnalyticsPort & Partial<CountsPort> & KeysPort & IdentitiesPort & ClockPort;

const invalid = (message: string, field: string, issue: string) => new ApiError(ErrorCode.VALIDATION_FAILED, message, [{ field, issue }]);

/** The bucket starts the answer covers: every bucket overlapping [from, to] up to the current one; refused past what is kept. */
function bucketsOf(input: AnalyticsRequest, now: number): number[] {
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  if (from > to) throw invalid('`from` is after `to`.', 'from', 'must not be after `to`');
  const size = BUCKET_MS[input.granularity];
  const first = bucketStart(from, input.granularity);
  if (first < bucketStart(now - KEPT[input.granularity].ms, input.granularity)) {
    throw invalid(
      `Counts by ${input.granularity} are kept for ${KEPT[input.granularity].words}: start later, or choose a coarser granularity.`,
      'from',
      `must be within the last ${KEPT[input.granularity].words}`,
    );
  }
  const last = bucketStart(Math.min(to, now), input.granularity);
  const buckets: number[] = [];
  for (let start = first; start <= last; start += size) buckets.push(start);
  return buckets;
}

async function read(services: AnalyticsPorts, teamId: string, granularity: Granularity, buckets: readonly number[], now: number): Promise<BucketCounts> {
  if (buckets.length === 0) return new Map();
  const [from, to] = [buckets[0] as number, buckets[buckets.length - 1] as number];
  if (granularity === 'minute') return services.analytics.minutes(teamId, from, to);
  return granularity === 'hour' ? services.analytics.hours(teamId, from, to, now) : services.analytics.days(teamId, from, to, now);
}

type Entry = Omit<CountedVerification, 'teamId'>;

/** One stored count, its entry name read once: the bucket it is in, what it counts, how many. */
interface Count {
  readonly start: number;
  readonly entry: Entry;
  readonly n: number;
}

/** Every count of `counts` (an entry name this version cannot read is left out). */
function countsIn(counts: BucketCounts): Count[] {
  return [...counts].flatMap(([start, bucket]) =>
    Object.entries(bucket).flatMap(([name, n]) => {
      const entry = entryOf(name);
      return entry ? [{ start, entry, n }] : [];
    }),
  );
}

/** The rows of `counts` over `buckets`, grouped as asked: busiest first in a bucket; without grouping, one per bucket, zeros included. */
function rowsOf(buckets: readonly number[], counts: readonly Count[], groupBy: readonly GroupBy[]): AnalyticsRow[] {
  const byBucket = new Map<number, Map<string, AnalyticsRow>>();
  for (const { start, entry, n } of counts) {
    const row = { start: new Date(start).toISOString() } as AnalyticsRow;
    if (groupBy.includes('outcome')) row.outcome = entry.outcome;
    if (groupBy.includes('scope')) row.scope = entry.scope === '' ? null : entry.scope;
    if (groupBy.includes('key')) Object.assign(row, { key_id: entry.keyId, identity_id: entry.identityId === '' ? null : entry.identityId });
    row.count = 0; // last: the documented order of a row's fields
    const grouped = byBucket.get(start) ?? new Map<string, AnalyticsRow>();
    byBucket.set(start, grouped);
    const id = JSON.stringify([row.outcome, row.scope, row.key_id]);
    const into = grouped.get(id) ?? row;
    into.count += n;
    grouped.set(id, into);
  }
  return buckets.flatMap((start) => {
    const grouped = [...(byBucket.get(start)?.values() ?? [])];
    if (grouped.length === 0 && groupBy.length === 0) return [{ start: new Date(start).toISOString(), count: 0 }];
    return grouped.sort((a, b) => b.count - a.count || JSON.stringify(a).localeCompare(JSON.stringify(b)));
  });
}

/** The busiest `limit` keys of `counts` (ties by id). */
function busiestKeys(counts: readonly Count[], limit: number): Set<string> {
  const totals = new Map<string, number>();
  for (const { entry, n } of counts) totals.set(entry.keyId, (totals.get(entry.keyId) ?? 0) + n);
  const ranked = [...totals.entries()].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return new Set(ranked.slice(0, limit).map(([keyId]) => keyId));
}

/** The keys the rows name, with their names: a deleted key by its tombstone for 90 days, then as deleted without a name (its counts stay). */
async function namedKeys(services: AnalyticsPorts, caller: VerifiedKey, keyIds: readonly string[], now: Date): Promise<NamedKey[]> {
  const found = await Promise.all(keyIds.map((keyId) => services.keys.getKey(keyId)));
  return keyIds.map((keyId, index) => {
    const key = found[index];
    const kept = key !== undefined && key.team_id === caller.team_id && key.entity === 'key' && !ttlExpired(key, now);
    return kept ? { key_id: keyId, name: key.name, deleted: key.state === 'deleted' } : { key_id: keyId, name: null, deleted: true };
  });
}

export async function verificationAnalytics(services: AnalyticsPorts, caller: VerifiedKey, input: AnalyticsRequest): Promise<AnalyticsAnswer> {
  assertOwnTeam(caller, input.team_id, 'The calling key cannot read another team’s analytics.');
  const now = services.clock.now();
  const buckets = bucketsOf(input, now.getTime());
  const groupBy = [...new Set(input.group_by ?? [])];
  if (groupBy.length === 0 && buckets.length > MAX_ROWS)
    throw invalid(
      `The range holds ${buckets.length} buckets, more than ${MAX_ROWS}: narrow it, or choose a coarser granularity.`,
      'to',
      `at most ${MAX_ROWS} buckets`,
    );
  // A key of another team is 404 here; one whose item is gone (its tombstone's 90 days over) is known by its counts, under this team.
  const purged = input.key_id !== undefined && (await keptKey(services, caller, input.key_id, now)) === undefined;
  if (purged && caller.environment === 'test') throw notFound(input.key_id as string);
  // The team's rows name its live keys too: as the team's audit trail, they need a live key.
  if (input.key_id === undefined && caller.environment === 'test') {
    throw new ApiError(ErrorCode.FORBIDDEN, 'A test key reads the analytics of one test key at a time: pass key_id.', [
      { field: 'team_id', issue: 'needs a live key; a test key may pass key_id' },
    ]);
  }
  if (input.identity_id !== undefined) await ownIdentity(services, caller, input.identity_id);
  // Counts this process holds are written first, so a read here sees them.
  await services.counts?.flush();
  const all = countsIn(await read(services, input.team_id, input.granularity, buckets, now.getTime()));
  // A purged key of the team is known by its counts; another team's never has one here.
  if (purged && !all.some(({ entry }) => entry.keyId === input.key_id)) throw notFound(input.key_id as string);
  const asked = all.filter(
    ({ entry }) => (input.key_id === undefined || entry.keyId === input.key_id) && (input.identity_id === undefined || entry.identityId === input.identity_id),
  );
  const busiest = groupBy.includes('key') ? busiestKeys(asked, input.limit) : undefined;
  const rows = rowsOf(buckets, busiest === undefined ? asked : asked.filter(({ entry }) => busiest.has(entry.keyId)), groupBy);
  if (rows.length > MAX_ROWS)
    throw invalid(
      `The answer would hold ${rows.length} rows, more than ${MAX_ROWS}: narrow the range, group by less, or lower \`limit\`.`,
      'to',
      `at most ${MAX_ROWS} rows`,
    );
  const keys = busiest === undefined ? undefined : await namedKeys(services, caller, [...busiest], now);
  const end = buckets.length === 0 ? Date.parse(input.to) : (buckets[buckets.length - 1] as number) + BUCKET_MS[input.granularity];
  return {
    rows,
    meta: {
      granularity: input.granularity,
      from: new Date(buckets[0] ?? Date.parse(input.from)).toISOString(),
      to: new Date(end).toISOString(),
      group_by: groupBy,
      ...(keys ? { keys } : {}),
    },
  };
}
