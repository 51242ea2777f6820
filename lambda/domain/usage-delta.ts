/** The uses of a key counted in memory and not written yet (usage-lease.ts): what a recording write adds to the usage item. */
/** One use of a key, as the usage item counts it. */
export interface UseCounted {
  at: Date;
  /** The day (`YYYY-MM-DD`) it counts in. */
  day: string;
  /** The transition counter it counts in, when the key is in a transition. */
  transitionCounter?: string;
}

/** Uses not yet written: what a recording write adds to the usage item. */
export class UsageDelta {
  count = 0;
  lastAt = new Date(0);
  readonly days = new Map<string, number>();
  readonly transitions = new Map<string, number>();

  add(use: UseCounted): this {
    this.count += 1;
    if (use.at > this.lastAt) this.lastAt = use.at;
    this.days.set(use.day, (this.days.get(use.day) ?? 0) + 1);
    if (use.transitionCounter) this.transitions.set(use.transitionCounter, (this.transitions.get(use.transitionCounter) ?? 0) + 1);
    return this;
  }

  merge(other: UsageDelta): this {
    this.count += other.count;
    if (other.lastAt > this.lastAt) this.lastAt = other.lastAt;
    for (const [day, n] of other.days) this.days.set(day, (this.days.get(day) ?? 0) + n);
    for (const [name, n] of other.transitions) this.transitions.set(name, (this.transitions.get(name) ?? 0) + n);
    return this;
  }
}
