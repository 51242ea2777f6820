/**
 * Usage counters and the per-key rate limit, both kept on the key's usage
 * item (`KEY#<id>` / `USAGE`), which both values of a key in transition share.
 *
 * Rate limit: a sliding one-hour window approximated over two fixed one-hour
 * windows (the Cloudflare/NGINX estimate):
 *
 *     estimate = previous × (1 − elapsed) + current
 *
 * where `elapsed` is the fraction of the current hour gone. A request is
 * admitted when the estimate including it is at most `rate_limit`.
 * Precision: exact while the previous hour was empty; otherwise it assumes
 * the previous hour's requests were spread evenly over it, so a burst at the
 * end (start) of the previous hour is under- (over-) weighted. Within one
 * clock hour at most `rate_limit` requests are admitted; over an arbitrary
 * sliding hour, fewer than 2 × `rate_limit` in the worst case (a burst in the
 * last moments of one hour, then steady use through the next).
 *
 * The counter is ONE conditional UpdateItem: it adds the request to the
 * current window only if the window is below its capacity
 * (`windows.<now> < ⌊rate_limit − previous × (1 − elapsed)⌋`), so DynamoDB
 * serialises concurrent requests on the item and exactly the capacity is
 * admitted however many arrive at once. The capacity needs the previous
 * window's count, which is final once that hour is over: it is remembered
 * per process from earlier responses. Without it the condition uses
 * `rate_limit` (a sound upper bound: the previous window only ever lowers the
 * capacity) and the returned item decides; a request that the condition let
 * through but the estimate refuses gives its slot back (rare: only the first
 * requests of a key per process and hour, while the previous hour had traffic).
 *
 * The same write records the use (last_used_at, total_requests, per-day and
 * per-transition counts), so an admitted request costs exactly one write. A
 * refused request is still an authenticated use: it is recorded by a second
 * write without taking a slot.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyTableKeys } from '../../contract/tables';
import type { UsageItem } from '../keys/model';
import { MS_PER_DAY } from '../platform/clock';

export const RATE_WINDOW_MS = 60 * 60 * 1000;

/**
 * Windows older than the previous one are removed by the recording write
 * itself, up to this many hours back; an older leftover (a key idle for more
 * than a day) is removed by one extra write on its next use.
 */
const INLINE_TIDY_WINDOWS = 24;

export interface RateLimitState {
  /** Requests per hour allowed. */
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /** Epoch seconds at which the current one-hour window ends. */
  reset: number;
  /** Seconds until a request would be admitted again; set only when refused. */
  retryAfterSeconds?: number;
}

export interface UseToRecord {
  keyId: string;
  at: Date;
  rateLimit: number;
  /** When the key is in a transition: which value was presented, and the transition's generation. */
  transition?: { generation: number; role: 'old' | 'new' };
}

export type RecordUseResult =
  | { admitted: true; rateLimit: RateLimitState }
  | { admitted: false; reason: 'RATE_LIMITED'; rateLimit: RateLimitState }
  | { admitted: false; reason: 'NO_USAGE_ITEM' };

export function windowIndex(at: Date): number {
  return Math.floor(at.getTime() / RATE_WINDOW_MS);
}

export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** An empty usage item for a new key. */
export function newUsageItem(keyId: string, teamId: string): UsageItem {
  return {
    ...keyTableKeys.usage(keyId),
    entity: 'usage',
    key_id: keyId,
    team_id: teamId,
    total_requests: 0,
    last_used_at: null,
    daily: {},
    transitions: {},
    windows: {},
  };
}

/** Fraction of the current window gone at `at`, in [0, 1). */
function elapsedFraction(at: Date): number {
  return (at.getTime() - windowIndex(at) * RATE_WINDOW_MS) / RATE_WINDOW_MS;
}

/** How many requests the current window may hold, given the previous window's count. */
export function windowCapacity(previous: number, elapsed: number, limit: number): number {
  return limit - previous * (1 - elapsed);
}

/**
 * Seconds until a request would be admitted, given the admitted counts of
 * the previous and current windows.
 */
export function secondsUntilAdmitted(previous: number, current: number, at: Date, limit: number): number {
  const index = windowIndex(at);
  const windowStart = index * RATE_WINDOW_MS;
  let admitAt: number;
  if (current + 1 <= limit && previous > 0) {
    // Within this window, once enough of the previous window has slid out.
    const elapsedNeeded = 1 - (limit - current - 1) / previous;
    admitAt = windowStart + elapsedNeeded * RATE_WINDOW_MS;
  } else {
    // In the next window, once enough of this window has slid out.
    const elapsedNeeded = current > 0 ? Math.max(0, 1 - (limit - 1) / current) : 0;
    admitAt = windowStart + RATE_WINDOW_MS + elapsedNeeded * RATE_WINDOW_MS;
  }
  return Math.max(1, Math.ceil((admitAt - at.getTime()) / 1000));
}

/**
 * Counts of windows that are over, learnt from earlier responses, by
 * `<key id>#<window index>`. Bounded; entries are refreshed by every item
 * this process sees, so a stale one corrects itself on the next request.
 */
const endedWindowCounts = new Map<string, number>();
const MAX_REMEMBERED_WINDOWS = 10_000;

function rememberEndedWindow(keyId: string, index: number, count: number): void {
  const name = `${keyId}#${index}`;
  endedWindowCounts.delete(name);
  endedWindowCounts.set(name, count);
  if (endedWindowCounts.size > MAX_REMEMBERED_WINDOWS) {
    const oldest = endedWindowCounts.keys().next().value as string;
    endedWindowCounts.delete(oldest);
  }
}

/** Forgets every remembered window count (tests that rewrite usage items directly). */
export function forgetRememberedWindows(): void {
  endedWindowCounts.clear();
}

interface UsageUpdate {
  names: Record<string, string>;
  values: Record<string, unknown>;
  sets: string[];
}

/** The SET clauses that record one use (no rate-limit slot). */
function usageClauses(use: UseToRecord): UsageUpdate {
  const names: Record<string, string> = { '#day': dayOf(use.at) };
  const values: Record<string, unknown> = { ':now': use.at.toISOString(), ':zero': 0, ':one': 1 };
  const sets = [
    'last_used_at = :now',
    'total_requests = if_not_exists(total_requests, :zero) + :one',
    'daily.#day = if_not_exists(daily.#day, :zero) + :one',
  ];
  if (use.transition) {
    // A flat entry (`g2_old`) in the map that exists since creation: no
    // per-transition map has to be made first, so the regenerate transaction
    // never writes this hot item (a standard write racing a transaction on
    // the same item makes one of them fail in DynamoDB).
    names['#gr'] = transitionCounterName(use.transition.generation, use.transition.role);
    sets.push('transitions.#gr = if_not_exists(transitions.#gr, :zero) + :one');
  }
  return { names, values, sets };
}

function refused(use: UseToRecord, windows: Record<string, number>): RecordUseResult {
  const index = windowIndex(use.at);
  const previous = windows[String(index - 1)] ?? 0;
  const current = windows[String(index)] ?? 0;
  return {
    admitted: false,
    reason: 'RATE_LIMITED',
    rateLimit: {
      limit: use.rateLimit,
      remaining: 0,
      reset: Math.floor(((index + 1) * RATE_WINDOW_MS) / 1000),
      retryAfterSeconds: secondsUntilAdmitted(previous, current, use.at, use.rateLimit),
    },
  };
}

/**
 * Records one authenticated use and takes a rate-limit slot: one conditional
 * UpdateItem when admitted. See the module comment for the algorithm.
 */
export async function recordUse(db: DynamoDBDocumentClient, tableName: string, use: UseToRecord): Promise<RecordUseResult> {
  const index = windowIndex(use.at);
  const elapsed = elapsedFraction(use.at);
  const reset = Math.floor(((index + 1) * RATE_WINDOW_MS) / 1000);
  const knownPrevious = endedWindowCounts.get(`${use.keyId}#${index - 1}`);
  // The most the current window may hold after this request; `rate_limit` bounds it whatever the previous window held.
  const maxCurrent =
    knownPrevious === undefined ? use.rateLimit : Math.floor(windowCapacity(knownPrevious, elapsed, use.rateLimit));

  if (maxCurrent >= 1) {
    const usage = usageClauses(use);
    const names: Record<string, string> = { ...usage.names, '#w': String(index) };
    const removals: string[] = [];
    for (let back = 2; back < 2 + INLINE_TIDY_WINDOWS; back++) {
      names[`#old${back}`] = String(index - back);
      removals.push(`windows.#old${back}`);
    }
    let item: UsageItem | undefined;
    try {
      const result = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyTableKeys.usage(use.keyId),
          UpdateExpression: `SET ${[...usage.sets, 'windows.#w = if_not_exists(windows.#w, :zero) + :one'].join(', ')} REMOVE ${removals.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(windows.#w) OR windows.#w < :max)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...usage.values, ':max': maxCurrent },
          ReturnValues: 'ALL_NEW',
        }),
      );
      item = result.Attributes as UsageItem;
    } catch (error) {
      // The window is full, or the usage item is gone: the use is recorded alone below.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    if (item) {
      const windows = item.windows ?? {};
      const previous = windows[String(index - 1)] ?? 0;
      const current = windows[String(index)] ?? 0;
      rememberEndedWindow(use.keyId, index - 1, previous);
      const leftovers = Object.keys(windows).filter((window) => Number(window) < index - 1);
      if (leftovers.length > 0) await removeWindows(db, tableName, use.keyId, leftovers);

      const capacity = windowCapacity(previous, elapsed, use.rateLimit);
      if (current <= capacity) {
        return {
          admitted: true,
          rateLimit: { limit: use.rateLimit, remaining: Math.max(0, Math.floor(capacity - current)), reset },
        };
      }
      // Let through by the upper bound, refused by the estimate: give the slot back (the use stays recorded).
      return refused(use, await releaseSlot(db, tableName, use.keyId, index));
    }
  }

  const windows = await recordRefusedUse(db, tableName, use);
  if (windows === undefined) return { admitted: false, reason: 'NO_USAGE_ITEM' };
  rememberEndedWindow(use.keyId, index - 1, windows[String(index - 1)] ?? 0);
  return refused(use, windows);
}

/** Records a refused use (no slot); the rate windows after it, or undefined when the key has no usage item. */
async function recordRefusedUse(
  db: DynamoDBDocumentClient,
  tableName: string,
  use: UseToRecord,
): Promise<Record<string, number> | undefined> {
  const usage = usageClauses(use);
  try {
    const result = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyTableKeys.usage(use.keyId),
        UpdateExpression: `SET ${usage.sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: usage.names,
        ExpressionAttributeValues: usage.values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (result.Attributes as UsageItem).windows ?? {};
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** Gives back a slot taken in window `index`; the rate windows after it. */
async function releaseSlot(
  db: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  index: number,
): Promise<Record<string, number>> {
  const result = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keyTableKeys.usage(keyId),
      UpdateExpression: 'SET windows.#w = windows.#w - :one',
      ConditionExpression: 'windows.#w > :zero',
      ExpressionAttributeNames: { '#w': String(index) },
      ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return (result.Attributes as UsageItem).windows ?? {};
}

/** Drops windows too old to matter (left over from a key idle for more than a day). */
async function removeWindows(db: DynamoDBDocumentClient, tableName: string, keyId: string, windows: string[]): Promise<void> {
  const names: Record<string, string> = {};
  const paths = windows.slice(0, 50).map((window, i) => {
    names[`#s${i}`] = window;
    return `windows.#s${i}`;
  });
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keyTableKeys.usage(keyId),
      UpdateExpression: `REMOVE ${paths.join(', ')}`,
      ExpressionAttributeNames: names,
    }),
  );
}

export interface UsageSummary {
  last_used_at: string | null;
  total_requests: number;
  usage_last_30_days: number;
  transitions: Record<string, { old: number; new: number }>;
}

/** Usage figures of a key, read from its usage item (zeros when it has none). */
export async function readUsage(
  db: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  at: Date,
): Promise<UsageSummary> {
  const result = await db.send(
    new GetCommand({ TableName: tableName, Key: keyTableKeys.usage(keyId), ConsistentRead: true }),
  );
  const item = result.Item as UsageItem | undefined;
  return summariseUsage(item, at);
}

/** The usage figures audit records keep. */
export function usageFigures(usage: UsageSummary): Pick<UsageSummary, 'total_requests' | 'usage_last_30_days' | 'last_used_at'> {
  return { total_requests: usage.total_requests, usage_last_30_days: usage.usage_last_30_days, last_used_at: usage.last_used_at };
}

/** Name of a transition counter in the usage item's `transitions` map. */
export function transitionCounterName(generation: number, role: 'old' | 'new'): string {
  return `g${generation}_${role}`;
}

/** Flat counters (`g2_old`, `g2_new`) as `{ g2: { old, new } }`. */
function transitionsOf(counters: Record<string, number>): Record<string, { old: number; new: number }> {
  const out: Record<string, { old: number; new: number }> = {};
  for (const [name, count] of Object.entries(counters)) {
    const match = /^(g\d+)_(old|new)$/.exec(name);
    if (!match) continue;
    const entry = (out[match[1]] ??= { old: 0, new: 0 });
    entry[match[2] as 'old' | 'new'] = count;
  }
  return out;
}

/** `usage_last_30_days` counts today and the 29 UTC days before it. */
export function summariseUsage(item: UsageItem | undefined, at: Date): UsageSummary {
  if (!item) return { last_used_at: null, total_requests: 0, usage_last_30_days: 0, transitions: {} };
  const first = dayOf(new Date(at.getTime() - 29 * MS_PER_DAY));
  const today = dayOf(at);
  const last30 = Object.entries(item.daily ?? {})
    .filter(([day]) => day >= first && day <= today)
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    last_used_at: item.last_used_at ?? null,
    total_requests: item.total_requests ?? 0,
    usage_last_30_days: last30,
    transitions: transitionsOf(item.transitions ?? {}),
  };
}
