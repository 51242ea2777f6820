/** The uses of a key counted in memory and not written yet (usage-lease.ts): what a recording write adds to the usage item. */
/** One use of a key, as the usage item counts it. */
export interface UseCounted {
  at: Date;
  /** The day (`YYYY-MM-DD`) it counts in. */
  day: string;
  /** The transition counter it counts in, when the key is in a transition. */
  transitionCounter?: string;
  /** Whether the use counts as a VALID verification once admitted (false: a key refused for the request, counted all the same). */
  eligible?: boolean;
}

/** Uses not yet written: what a recording write adds to the usage item. */
export class UsageDelta {
  count = 0;
  lastAt = new Date(0);
  /** The latest use admitted as VALID among them (`last_valid_at`), if any. */
  lastValidAt: Date | undefined;
  readonly days = new Map<string, number>();
  readonly transitions = new Map<string, number>();
  /** Per transition whose old value these uses include: the latest of them (`g2_old_last`, epoch ms), for a use-driven grace (grace-modes.ts). */
  readonly oldLast = new Map<string, number>();

  /** `admitted`: the use was admitted (from a lease's block); it then counts as VALID when eligible. */
  add(use: UseCounted, admitted = false): this {
    this.count += 1;
    if (use.at > this.lastAt) this.lastAt = use.at;
    if (admitted && use.eligible) this.lastValidAt = latest(this.lastValidAt, use.at);
    this.days.set(use.day, (this.days.get(use.day) ?? 0) + 1);
    if (use.transitionCounter) this.transitions.set(use.transitionCounter, (this.transitions.get(use.transitionCounter) ?? 0) + 1);
    // A use refused for the request is no use of the old value by a client that holds it.
    if (use.transitionCounter?.endsWith('_old') && use.eligible) this.laterOldUse(`${use.transitionCounter}_last`, use.at.getTime());
    return this;
  }

  merge(other: UsageDelta): this {
    this.count += other.count;
    if (other.lastAt > this.lastAt) this.lastAt = other.lastAt;
    this.lastValidAt = latest(this.lastValidAt, other.lastValidAt);
    for (const [day, n] of other.days) this.days.set(day, (this.days.get(day) ?? 0) + n);
    for (const [name, n] of other.transitions) this.transitions.set(name, (this.transitions.get(name) ?? 0) + n);
    for (const [name, at] of other.oldLast) this.laterOldUse(name, at);
    return this;
  }

  private laterOldUse(name: string, at: number): void {
    if (at > (this.oldLast.get(name) ?? 0)) this.oldLast.set(name, at);
  }
}

/** The later of two instants, either of which may be missing. */
export function latest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a > b ? a : b;
}
