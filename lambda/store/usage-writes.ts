/**
 * The recording write's parts, as data: what one use adds to the usage item
 * (its SET and REMOVE clauses), and the answers a write's result means. Pure;
 * the usage store sends them (usage-store.ts).
 */
import { admittedAgainAt, windowIndex, windowResetAt } from '../domain/rate-window';
import type { RecordUseResult, UseToRecord } from '../domain/recording';
import type { LocalDecision } from '../domain/usage-lease';
import type { UsageDelta, UseCounted } from '../domain/usage-delta';
import { dayOf, transitionCounterName } from '../domain/usage-figures';

/**
 * Windows older than the previous one are removed by the first recording
 * write of a process in a new hour, up to this many hours back; an older
 * leftover (a key idle for more than a day) is removed by one extra write on
 * its next use. Once the item is seen tidy in an hour, the process's other
 * writes of that hour name no old window (see ended-windows.ts).
 */
export const INLINE_TIDY_WINDOWS = 24;

/** Leftover windows one tidy write removes at most. */
export const MAX_WINDOWS_REMOVED_PER_WRITE = 50;

/** Copied days one recording write removes from the usage item at most. */
export const MAX_COPIED_DAYS_REMOVED_PER_WRITE = 40;

/** `last_valid_at` of a key that has had no VALID use, where one is put back (the epoch: older than any use). */
export const NEVER_VALID = '1970-01-01T00:00:00.000Z';

export interface UsageUpdate {
  names: Record<string, string>;
  values: Record<string, unknown>;
  sets: string[];
  removes: string[];
}

/** What one use adds to the usage item. */
export function countedOf(use: UseToRecord): UseCounted {
  return {
    at: use.at,
    day: dayOf(use.at),
    transitionCounter: use.transition ? transitionCounterName(use.transition.generation, use.transition.role) : undefined,
    eligible: !use.refused,
    ...(use.source ? { source: use.source } : {}),
  };
}

/**
 * The SET clauses that record `delta` (no rate-limit slot), and the REMOVE
 * paths of days already copied to their month. `earlyToken`: a write sent
 * before its read (verification/early-write.ts) keeps the `last_used_at` it
 * replaces in `prior_used_at` (the operands of an update expression are read
 * from the item as it was) and marks the item with its token, so that its
 * take-back can tell whether another use was recorded since (and the
 * `last_valid_at` it replaces in `prior_valid_at`); any other recording
 * write removes them. `validAt`: the latest use the write admits as VALID
 * (default: those `delta` holds admitted).
 */
export function usageClauses(delta: UsageDelta, copiedDays: readonly string[] = [], earlyToken?: string, validAt = delta.lastValidAt): UsageUpdate {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': delta.lastAt.toISOString(), ':zero': 0, ':uses': delta.count };
  const sets = ['last_used_at = :now', 'total_requests = if_not_exists(total_requests, :zero) + :uses'];
  // The last use admitted as VALID (the key list's unused filter): set by the write that admits it, or by a lease's write of it.
  if (validAt) {
    sets.push('last_valid_at = :validAt');
    values[':validAt'] = validAt.toISOString();
  }
  if (earlyToken !== undefined) {
    sets.push('prior_used_at = if_not_exists(last_used_at, :never)', 'prior_valid_at = if_not_exists(last_valid_at, :noValid)', 'early_token = :token');
    values[':never'] = null;
    values[':noValid'] = NEVER_VALID;
    values[':token'] = earlyToken;
  }
  [...delta.days].forEach(([day, count], i) => {
    names[`#day${i}`] = day;
    values[`:day${i}`] = count;
    sets.push(`daily.#day${i} = if_not_exists(daily.#day${i}, :zero) + :day${i}`);
  });
  // A flat entry (`g2_old`) in the map that exists since creation: no
  // per-transition map has to be made first, so the regenerate transaction
  // never writes this hot item (a standard write racing a transaction on
  // the same item makes one of them fail in DynamoDB).
  [...delta.transitions].forEach(([counter, count], i) => {
    names[`#gr${i}`] = counter;
    values[`:gr${i}`] = count;
    sets.push(`transitions.#gr${i} = if_not_exists(transitions.#gr${i}, :zero) + :gr${i}`);
  });
  // A transition's activity, flat entries too (usage-delta.ts `activityEntry`): last uses, and the old value's uses per hour
  // and per network; an old value's hours before the previous one go (the key read counts the last hour from two).
  [...delta.lastUses].forEach(([name, at], i) => {
    names[`#lu${i}`] = name;
    values[`:lu${i}`] = at;
    sets.push(`transitions.#lu${i} = :lu${i}`);
  });
  [...delta.activity].forEach(([name, count], i) => {
    names[`#ac${i}`] = name;
    values[`:ac${i}`] = count;
    sets.push(`transitions.#ac${i} = if_not_exists(transitions.#ac${i}, :zero) + :ac${i}`);
  });
  const removes = copiedDays.map((day, i) => {
    names[`#cd${i}`] = day;
    return `daily.#cd${i}`;
  });
  [...delta.staleHours]
    .filter((name) => !delta.activity.has(name))
    .forEach((name, i) => {
      names[`#st${i}`] = name;
      removes.push(`transitions.#st${i}`);
    });
  if (earlyToken === undefined) removes.push('early_token', 'prior_used_at', 'prior_valid_at');
  return { names, values, sets, removes };
}

/** A refusal of `use` until `admittedAt` (epoch ms). */
export function refusedUntil(use: UseToRecord, admittedAt: number): RecordUseResult {
  return {
    admitted: false,
    reason: 'RATE_LIMITED',
    rateLimit: {
      limit: use.rateLimit,
      remaining: 0,
      reset: windowResetAt(use.at),
      retryAfterSeconds: Math.max(1, Math.ceil((admittedAt - use.at.getTime()) / 1000)),
    },
  };
}

/** When a slot frees for `use`, from the rate windows a write returned. */
export function admittedAtAfter(use: UseToRecord, windows: Record<string, number>): number {
  const index = windowIndex(use.at);
  return admittedAgainAt(windows[String(index - 1)] ?? 0, windows[String(index)] ?? 0, use.at, use.rateLimit);
}

/** The answer to a use admitted or refused from the process's lease, without a write. */
export function decidedLocally(use: UseToRecord, decision: LocalDecision): RecordUseResult {
  if (!decision.admitted) return refusedUntil(use, decision.refusedUntil);
  return { admitted: true, rateLimit: { limit: use.rateLimit, remaining: decision.remaining, reset: windowResetAt(use.at) } };
}
