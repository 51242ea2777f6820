/**
 * Who still sends a key's old value (docs/verification.md, "Who still sends
 * the old value"): what a key read shows while the key is in a transition,
 * from the activity entries its usage item keeps (usage-delta.ts
 * `activityEntry`, written with the uses, no write of their own). Pure.
 */
import { activityEntry } from './usage-delta';
import { MS_PER_HOUR } from '../platform/clock';
import type { KeyItem } from './model';
import { transitionCounterName } from './usage-figures';

/** Networks a read shows at most (the most uses first). */
export const SOURCES_SHOWN = 5;

export interface OldValueView {
  last_four: string;
  /** When it stops working: the hard maximum, or the end use decided (grace-modes.ts). */
  ends_at: string;
  last_used_at: string | null;
  /** Its uses in the last hour: this clock hour's, and the previous hour's weighted by the part of it still in the last 60 minutes. */
  uses_last_hour: number;
  /** The networks it was used from (IPv4 /24, IPv6 /48), the most uses first. */
  sources: Array<{ source: string; uses: number; last_used_at: string }>;
}

export interface TransitionView {
  old_value: OldValueView;
  current_value: { last_four: string; last_used_at: string | null };
}

const instantOf = (ms: number | undefined): string | null => (ms ? new Date(ms).toISOString() : null);

/** The read's view of a key in a live transition (`key` with its end as use decided it, key-view.ts `withUseDrivenEnd`). */
export function transitionViewOf(key: KeyItem, entries: Record<string, number> | undefined, now: Date): TransitionView {
  const found = entries ?? {};
  const old = transitionCounterName(key.generation, 'old');
  const hour = Math.floor(now.getTime() / MS_PER_HOUR);
  const intoHour = (now.getTime() - hour * MS_PER_HOUR) / MS_PER_HOUR;
  const lastHour = (found[activityEntry.hour(old, hour)] ?? 0) + (found[activityEntry.hour(old, hour - 1)] ?? 0) * (1 - intoHour);
  const prefix = activityEntry.source(old, '');
  const sources = Object.entries(found)
    .filter(([name]) => name.startsWith(prefix))
    .map(([name, uses]) => {
      const source = name.slice(prefix.length);
      return { source, uses, last_used_at: instantOf(found[activityEntry.sourceLast(old, source)]) ?? '' };
    })
    .sort((a, b) => b.uses - a.uses || b.last_used_at.localeCompare(a.last_used_at) || a.source.localeCompare(b.source))
    .slice(0, SOURCES_SHOWN);
  return {
    old_value: {
      last_four: key.previous_last_four ?? '',
      ends_at: key.transition_ends_at as string,
      last_used_at: instantOf(found[activityEntry.last(old)]),
      uses_last_hour: Math.round(lastHour),
      sources,
    },
    current_value: { last_four: key.last_four, last_used_at: instantOf(found[activityEntry.last(transitionCounterName(key.generation, 'new'))]) },
  };
}
