/**
 * The value lookups a process has read lately, by value hash: what lets the
 * verify endpoint send a value's recording write at the same time as its
 * read instead of after it (guess-limiter.ts, docs/performance.md §2).
 *
 * A remembered lookup is only ever a *prediction* of which usage item the
 * write goes to and under which rate limit. It never decides an answer: the
 * strongly consistent read sent with the write does, and a write whose
 * prediction the read contradicts (a key disabled, deleted, rolled or
 * re-limited since) is taken back (verification/early-write.ts). So a stale entry
 * costs one extra write, never a wrong answer, and revocation stays
 * immediate.
 *
 * Holds hashes and key configuration only, never a value. One per process;
 * bounded, least recently read first out.
 */
import { RecentMap } from '../platform/recent-map';
import type { ValueLookupItem } from '../domain/model';

export class SeenLookups {
  private readonly lookups: RecentMap<string, ValueLookupItem>;

  constructor(capacity = 5_000) {
    this.lookups = new RecentMap(capacity);
  }

  /** The lookup last read for `valueHash`, if this process read one. */
  get(valueHash: string): ValueLookupItem | undefined {
    return this.lookups.get(valueHash);
  }

  /** What a strongly consistent read of `valueHash` found (undefined: no such value). */
  saw(valueHash: string, lookup: ValueLookupItem | undefined): void {
    if (lookup) this.lookups.set(valueHash, lookup);
    else this.lookups.delete(valueHash);
  }

  /** Forgets everything. */
  clear(): void {
    this.lookups.clear();
  }
}
