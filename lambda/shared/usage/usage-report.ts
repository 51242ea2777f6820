/**
 * A key's usage as the usage route answers it: totals, the last `days` UTC
 * days zero-filled oldest first, and during a live transition the uses of
 * the old and the new value.
 */
import type { VerifiedKey } from '../auth/verify';
import type { UsageRequest } from '../http/schemas/read-keys';
import { inLiveTransition } from '../keys/key-store';
import { reachableKey } from '../keys/read-keys';
import type { Services } from '../platform/services';
import type { KeyItem, UsageItem } from '../keys/model';
import { MS_PER_DAY } from '../platform/clock';
import { dayOf, summariseUsage } from './usage-figures';

export interface UsageReport {
  key_id: string;
  total_requests: number;
  last_used_at: string | null;
  usage_last_30_days: number;
  daily: Array<{ date: string; requests: number }>;
  transition: null | { old_value_requests: number; new_value_requests: number; transition_ends_at: string };
}

export function usageReport(key: KeyItem, item: UsageItem | undefined, days: number, now: Date): UsageReport {
  const summary = summariseUsage(item, now);
  const daily = Array.from({ length: days }, (_, i) => {
    const date = dayOf(new Date(now.getTime() - (days - 1 - i) * MS_PER_DAY));
    return { date, requests: item?.daily?.[date] ?? 0 };
  });
  const live = inLiveTransition(key, now);
  const counts = summary.transitions[`g${key.generation}`];
  return {
    key_id: key.id,
    total_requests: summary.total_requests,
    last_used_at: summary.last_used_at,
    usage_last_30_days: summary.usage_last_30_days,
    daily,
    transition: live
      ? { old_value_requests: counts?.old ?? 0, new_value_requests: counts?.new ?? 0, transition_ends_at: key.transition_ends_at as string }
      : null,
  };
}

/** The usage route: a reachable key of the caller's team, its report over `days`. */
export async function keyUsage(services: Services, caller: VerifiedKey, input: UsageRequest): Promise<UsageReport> {
  const now = services.clock.now();
  const key = await reachableKey(services, caller, input.key_id, now);
  return usageReport(key, await services.usage.usageItem(key.id), input.days, now);
}
