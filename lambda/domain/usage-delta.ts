/** The uses of a key counted in memory and not written yet (usage-lease.ts): what a recording write adds to the usage item. */
import { MS_PER_HOUR } from '../platform/clock';

/** One use of a key, as the usage item counts it. */
export interface UseCounted {
  at: Date;
  /** The day (`YYYY-MM-DD`) it counts in. */
  day: string;
  /** The transition counter it counts in, when the key is in a transition. */
  transitionCounter?: string;
  /** Whether the use counts as a VALID verification once admitted (false: a key refused for the request, counted all the same). */
  eligible?: boolean;
  /** An old value's use: the caller's network (ip-allowlist.ts `callerNetworkOf`), when tracked. */
  source?: string;
}

/** The usage item's flat entries of a transition's activity (`transitions` map), beside its counters `g2_old` / `g2_new`. */
export const activityEntry = {
  /** A value's last use (epoch ms): `g2_old_last`, `g2_new_last`. */
  last: (counter: string) => `${counter}_last`,
  /** An old value's uses in one clock hour: `g2_old_h<hours since the epoch>`. */
  hour: (counter: string, hour: number) => `${counter}_h${hour}`,
  /** An old value's uses from one network, and its last use from there: `g2_old_src:<network>`, `g2_old_srcat:<network>`. */
  source: (counter: string, network: string) => `${counter}_src:${network}`,
  sourceLast: (counter: string, network: string) => `${counter}_srcat:${network}`,
};

/** Uses not yet written: what a recording write adds to the usage item. */
export class UsageDelta {
  count = 0;
  lastAt = new Date(0);
  /** The latest use admitted as VALID among them (`last_valid_at`), if any. */
  lastValidAt: Date | undefined;
  readonly days = new Map<string, number>();
  readonly transitions = new Map<string, number>();
  /** Latest uses (epoch ms) by `activityEntry` name: each value's in a transition (a use-driven grace's idle end, grace-modes.ts), an old value's per network. */
  readonly lastUses = new Map<string, number>();
  /** Counts by `activityEntry` name: an old value's uses per clock hour and per network. */
  readonly activity = new Map<string, number>();
  /** An old value's hour entries before the previous one of the hours counted: the write removes them (the key read counts the last hour from two). */
  readonly staleHours = new Set<string>();

  /** `admitted`: the use was admitted (from a lease's block); it then counts as VALID when eligible. */
  add(use: UseCounted, admitted = false): this {
    this.count += 1;
    if (use.at > this.lastAt) this.lastAt = use.at;
    if (admitted && use.eligible) this.lastValidAt = latest(this.lastValidAt, use.at);
    this.days.set(use.day, (this.days.get(use.day) ?? 0) + 1);
    if (use.transitionCounter) this.transitions.set(use.transitionCounter, (this.transitions.get(use.transitionCounter) ?? 0) + 1);
    // A use refused for the request is no use of the value by a client that holds it.
    if (use.transitionCounter && use.eligible) this.noteActivity(use.transitionCounter, use.at.getTime(), use.source);
    return this;
  }

  merge(other: UsageDelta): this {
    this.count += other.count;
    if (other.lastAt > this.lastAt) this.lastAt = other.lastAt;
    this.lastValidAt = latest(this.lastValidAt, other.lastValidAt);
    for (const [day, n] of other.days) this.days.set(day, (this.days.get(day) ?? 0) + n);
    for (const [name, n] of other.transitions) this.transitions.set(name, (this.transitions.get(name) ?? 0) + n);
    for (const [name, at] of other.lastUses) this.laterUse(name, at);
    for (const [name, n] of other.activity) this.activity.set(name, (this.activity.get(name) ?? 0) + n);
    for (const name of other.staleHours) this.staleHours.add(name);
    return this;
  }

  private noteActivity(counter: string, at: number, source: string | undefined): void {
    this.laterUse(activityEntry.last(counter), at);
    if (!counter.endsWith('_old')) return;
    const hour = Math.floor(at / MS_PER_HOUR);
    const counted = [activityEntry.hour(counter, hour), ...(source ? [activityEntry.source(counter, source)] : [])];
    for (const name of counted) this.activity.set(name, (this.activity.get(name) ?? 0) + 1);
    for (const back of [2, 3]) this.staleHours.add(activityEntry.hour(counter, hour - back));
    if (source) this.laterUse(activityEntry.sourceLast(counter, source), at);
  }

  private laterUse(name: string, at: number): void {
    if (at > (this.lastUses.get(name) ?? 0)) this.lastUses.set(name, at);
  }
}

/** The later of two instants, either of which may be missing. */
export function latest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a > b ? a : b;
}
