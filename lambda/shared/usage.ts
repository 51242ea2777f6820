/**
 * Usage counters and the per-key rate limit, both kept on the key's usage
 * item so that recording a use is ONE UpdateItem: atomic under concurrency
 * (no transaction to conflict) and one round trip on the hot path.
 *
 * Rate limit: a sliding window approximated over two fixed one-hour windows
 * (the Cloudflare/NGINX estimate): `estimate = previous × (1 − elapsed) +
 * current`, where `elapsed` is the fraction of the current hour gone. Each
 * request atomically takes a slot in the current window and is admitted when
 * the estimate including it is within `rate_limit`; a refused request gives
 * its slot back, so only admitted requests count. Precision: exact when the
 * previous hour was empty; otherwise it assumes the previous hour's requests
 * were spread evenly, which can admit or refuse up to that unevenness.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyTableKeys } from './table-schema';
import type { UsageItem } from './model';
import { MS_PER_DAY } from './clock';

export const RATE_WINDOW_MS = 60 * 60 * 1000;

export interface RateLimitState {
  /** Requests per hour allowed. */
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /** Epoch seconds at which the current window ends. */
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

function estimate(previous: number, current: number, elapsed: number): number {
  return previous * (1 - elapsed) + current;
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
 * Records one authenticated use and takes a rate-limit slot, in one
 * UpdateItem. Refused requests still count as uses (they were authenticated)
 * but give their rate-limit slot back.
 */
export async function recordUse(db: DynamoDBDocumentClient, tableName: string, use: UseToRecord): Promise<RecordUseResult> {
  const index = windowIndex(use.at);
  const names: Record<string, string> = { '#day': dayOf(use.at), '#w': String(index) };
  const sets = [
    'last_used_at = :now',
    'total_requests = if_not_exists(total_requests, :zero) + :one',
    'daily.#day = if_not_exists(daily.#day, :zero) + :one',
    'windows.#w = if_not_exists(windows.#w, :zero) + :one',
  ];
  if (use.transition) {
    names['#g'] = `g${use.transition.generation}`;
    names['#role'] = use.transition.role;
    sets.push('transitions.#g.#role = if_not_exists(transitions.#g.#role, :zero) + :one');
  }
  let item: UsageItem;
  try {
    const result = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyTableKeys.usage(use.keyId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':now': use.at.toISOString(), ':zero': 0, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    item = result.Attributes as UsageItem;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { admitted: false, reason: 'NO_USAGE_ITEM' };
    throw error;
  }

  const current = item.windows[String(index)] ?? 0;
  const previous = item.windows[String(index - 1)] ?? 0;
  const elapsed = (use.at.getTime() - index * RATE_WINDOW_MS) / RATE_WINDOW_MS;
  const reset = Math.floor(((index + 1) * RATE_WINDOW_MS) / 1000);
  const stale = Object.keys(item.windows).filter((window) => Number(window) < index - 1);
  const admitted = estimate(previous, current, elapsed) <= use.rateLimit;

  if (!admitted || stale.length > 0) {
    await releaseAndTidy(db, tableName, use.keyId, admitted ? undefined : String(index), stale);
  }
  if (!admitted) {
    const admittedCurrent = current - 1;
    return {
      admitted: false,
      reason: 'RATE_LIMITED',
      rateLimit: {
        limit: use.rateLimit,
        remaining: 0,
        reset,
        retryAfterSeconds: secondsUntilAdmitted(previous, admittedCurrent, use.at, use.rateLimit),
      },
    };
  }
  return {
    admitted: true,
    rateLimit: {
      limit: use.rateLimit,
      remaining: Math.max(0, Math.floor(use.rateLimit - estimate(previous, current, elapsed))),
      reset,
    },
  };
}

/** Gives back a refused request's slot and drops windows too old to matter. */
async function releaseAndTidy(
  db: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  releaseWindow: string | undefined,
  staleWindows: string[],
): Promise<void> {
  const names: Record<string, string> = {};
  const clauses: string[] = [];
  const values: Record<string, unknown> = {};
  if (releaseWindow !== undefined) {
    names['#release'] = releaseWindow;
    values[':one'] = 1;
    clauses.push('SET windows.#release = windows.#release - :one');
  }
  if (staleWindows.length > 0) {
    const removals = staleWindows.slice(0, 50).map((window, i) => {
      names[`#s${i}`] = window;
      return `windows.#s${i}`;
    });
    clauses.push(`REMOVE ${removals.join(', ')}`);
  }
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keyTableKeys.usage(keyId),
      UpdateExpression: clauses.join(' '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: Object.keys(values).length > 0 ? values : undefined,
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
    transitions: item.transitions ?? {},
  };
}
