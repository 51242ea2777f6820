/**
 * A key's usage as the usage route answers it: totals, the last `days` UTC
 * days zero-filled oldest first, and during a live transition the uses of
 * the old and the new value. Usage statistics are kept for good, so they
 * stay readable after the key is deleted: through its tombstone while it
 * lasts (90 days), then through the usage item's own team, by a `live` key.
 */
import { notFound } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { inLiveTransition } from '../domain/key-lifetime';
import { keptKey } from './read-keys';
import type { KeyItem, UsageItem, UsageMonthItem } from '../domain/model';
import { MS_PER_DAY } from '../platform/clock';
import { dayOf, summariseUsage } from '../domain/usage-figures';
import type { ClockPort, KeysPort, UsagePort } from '../store/ports';

export interface UsageReport {
  key_id: string;
  /** Whether the key has been deleted (its figures stay readable). */
  deleted: boolean;
  total_requests: number;
  last_used_at: string | null;
  usage_last_30_days: number;
  daily: Array<{ date: string; requests: number }>;
  /** Every month with a request, oldest first: the key's permanent history. */
  monthly: Array<{ month: string; requests: number }>;
  transition: null | { old_value_requests: number; new_value_requests: number; transition_ends_at: string };
}

/**
 * Requests per day from the usage item (recent days) and the month items
 * (older days). A day copied to its month and not yet removed from the usage
 * item is in both with the same count: it is counted once.
 */
function requestsByDay(item: UsageItem | undefined, months: readonly UsageMonthItem[]): Map<string, number> {
  const byDay = new Map<string, number>();
  for (const month of months) {
    for (const [name, count] of Object.entries(month)) {
      if (/^d\d\d$/.test(name) && typeof count === 'number') byDay.set(`${month.month}-${name.slice(1)}`, count);
    }
  }
  for (const [day, count] of Object.entries(item?.daily ?? {})) byDay.set(day, count);
  return byDay;
}

/** `key`: the key item of a live key, for its transition; undefined for a deleted key. */
export function usageReport(
  keyId: string,
  key: KeyItem | undefined,
  item: UsageItem | undefined,
  months: readonly UsageMonthItem[],
  days: number,
  now: Date,
): UsageReport {
  const summary = summariseUsage(item, now);
  const byDay = requestsByDay(item, months);
  const daily = Array.from({ length: days }, (_, i) => {
    const date = dayOf(new Date(now.getTime() - (days - 1 - i) * MS_PER_DAY));
    return { date, requests: byDay.get(date) ?? 0 };
  });
  const byMonth = new Map<string, number>();
  for (const [day, count] of byDay) byMonth.set(day.slice(0, 7), (byMonth.get(day.slice(0, 7)) ?? 0) + count);
  const monthly = [...byMonth.entries()]
    .filter(([, requests]) => requests > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([month, requests]) => ({ month, requests }));
  const transition = key && inLiveTransition(key, now) ? key : undefined;
  const counts = transition ? summary.transitions[`g${transition.generation}`] : undefined;
  return {
    key_id: keyId,
    deleted: key === undefined,
    total_requests: summary.total_requests,
    last_used_at: summary.last_used_at,
    usage_last_30_days: summary.usage_last_30_days,
    daily,
    monthly,
    transition: transition
      ? { old_value_requests: counts?.old ?? 0, new_value_requests: counts?.new ?? 0, transition_ends_at: transition.transition_ends_at as string }
      : null,
  };
}

/** What a usage report reads: the key (its reach), its usage, the clock. */
export type UsageReportPorts = KeysPort & UsagePort & ClockPort;

/**
 * The usage route: a key of the caller's team that the caller may reach, its
 * report over `days`. A deleted key is reached through its tombstone (its
 * environment), and once the tombstone is gone through the usage item's team,
 * by a `live` key only (the environment went with the tombstone). Another
 * team's key, or an id never issued, is 404.
 */
export async function keyUsage(services: UsageReportPorts, caller: VerifiedKey, input: { key_id: string; days: number }): Promise<UsageReport> {
  const now = services.clock.now();
  const kept = await keptKey(services, caller, input.key_id, now);
  const [item, months] = await Promise.all([services.usage.usageItem(input.key_id), services.usage.months.usageHistory(input.key_id)]);
  if (!kept && (item === undefined || item.team_id !== caller.team_id || caller.environment !== 'live')) throw notFound(input.key_id);
  return usageReport(input.key_id, kept?.state === 'active' ? kept : undefined, item, months, input.days, now);
}
