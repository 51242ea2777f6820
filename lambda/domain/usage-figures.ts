/**
 * Usage figures of a key, read from its usage item (store/entities/usage.ts):
 * totals, the 30-day window, per-transition counts.
 * Usage items never expire (the spec keeps usage statistics permanently).
 */
import { meterViewOf, type CreditState } from './meters';
import type { UsageItem } from './model';
import { MS_PER_DAY } from '../platform/clock';
import { activityEntry } from './usage-delta';

export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Days the usage item keeps: today and the 31 UTC days before it (the
 * 30-day figure needs 30; one more for clocks a little apart). Older days
 * move to the key's month items.
 */
export const USAGE_DAYS_KEPT = 32;

/** The entries of `daily` older than the usage item keeps at `at`. */
export function staleDaysOf(daily: Record<string, number>, at: Date): [string, number][] {
  const first = dayOf(new Date(at.getTime() - (USAGE_DAYS_KEPT - 1) * MS_PER_DAY));
  return Object.entries(daily).filter(([day]) => day < first);
}

export interface UsageSummary {
  last_used_at: string | null;
  total_requests: number;
  usage_last_30_days: number;
  transitions: Record<string, { old: number; new: number }>;
  /** The key's credits as its usage item holds them, when it has credits (domain/meters.ts). */
  credits?: CreditState;
  /** The usage item's transition entries as stored (counters and activity, transition-activity.ts); absent without an item. */
  transition_entries?: Record<string, number>;
}

/** The usage figures audit records keep. */
export function usageFigures(usage: UsageSummary): Pick<UsageSummary, 'total_requests' | 'usage_last_30_days' | 'last_used_at'> {
  return { total_requests: usage.total_requests, usage_last_30_days: usage.usage_last_30_days, last_used_at: usage.last_used_at };
}

/** Name of a transition counter in the usage item's `transitions` map. */
export function transitionCounterName(generation: number, role: 'old' | 'new'): string {
  return `g${generation}_${role}`;
}

/** A usage item's (or a projection's) transition entries as stored: counters and activity (transition-activity.ts). */
export const transitionEntriesOf = (item: { transitions?: unknown }): Pick<UsageSummary, 'transition_entries'> => ({
  transition_entries: (item.transitions ?? {}) as Record<string, number>,
});

/** The transition entry of the old value's last use in transition `generation` (`g2_old_last`, epoch ms; usage-delta.ts `activityEntry`). */
export const oldValueLastEntry = (generation: number): string => activityEntry.last(transitionCounterName(generation, 'old'));

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

/** A usage item's credits, when the key has some (its meter, domain/meters.ts). */
export function creditsOf(item: object): { credits?: CreditState } {
  const { credits } = meterViewOf(item as Record<string, unknown>);
  return credits ? { credits } : {};
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
    ...creditsOf(item),
    ...transitionEntriesOf(item),
  };
}

/** A key's last use, and its last use admitted as VALID (absent until one is, and on usage items written before it was kept). */
export interface LastUse {
  last_used_at: string | null;
  last_valid_at?: string;
}

/** `LastUse` from a usage item's attributes (a projection of them). */
export const lastUseOf = (item: Record<string, unknown>): LastUse => ({
  last_used_at: (item.last_used_at as string | null) ?? null,
  last_valid_at: item.last_valid_at as string | undefined,
});
