/**
 * Leased capacity for hot keys: what one process remembers about each key it
 * verifies, so that a key verified many times a second is not written once
 * per verification.
 *
 * A recording write (usage-store.ts) may take a *block* of the current rate
 * window's slots instead of one; the process then admits the next requests
 * of that key from the block in memory, and keeps their uses as *pending*
 * (counts per day and per transition, the latest time). The next write of
 * the key, whichever it is, carries the pending uses with it; a write is
 * forced once the oldest pending use is `flushAfterMs` old, and a timer
 * flushes a key that goes quiet. A window found full is remembered until the
 * moment a slot would free, and requests refused in the meantime are pending
 * uses as well.
 *
 * The block starts at 1, exactly the one-write-per-request behaviour, and
 * grows (doubling, or to the number of requests waiting for the write) while
 * a block lasts less than `growBelowMs`; it halves when one lasts more than
 * `shrinkAboveMs`. It is capped at a share of the room left in the window,
 * so the processes sharing a key leave each other room, and it is 1 while
 * the previous window's count is not known (the write's condition is then
 * only an upper bound). Leased slots count in their window whether or not
 * they are used: no window ever admits more than the key's capacity across
 * all processes; slots a process leased and did not use are the cost (some
 * precision near a key's limit, only at high rates).
 *
 * Design, trade-offs and arithmetic: docs/performance.md, "Hot keys".
 */
import type { UsageDelta, UseCounted } from './usage-delta';
import { LeaseMap, OneWrite, PendingUses } from './lease-parts';

export interface LeaseSettings {
  /** Off: every use is its own write, as without leases. */
  readonly enabled: boolean;
  /** A pending use is written within this long (the staleness of `last_used_at` and totals). */
  readonly flushAfterMs: number;
  /** A block used up faster than this doubles the next one. */
  readonly growBelowMs: number;
  /** A block that lasted longer than this halves the next one. */
  readonly shrinkAboveMs: number;
  /** The largest block. */
  readonly maxBlock: number;
  /** The share of the room left in the window one block may take. */
  readonly roomShare: number;
  /** A metered block (meter-lease.ts) admits nothing after this long, even in a sandbox that froze, and reads stop counting its holding. */
  readonly holdMs: number;
}

export const DEFAULT_LEASE_SETTINGS: LeaseSettings = {
  enabled: true,
  flushAfterMs: 2_000,
  growBelowMs: 500,
  shrinkAboveMs: 2_000,
  maxBlock: 1_000,
  roomShare: 0.25,
  holdMs: 10_000,
};

/** A request admitted or refused from memory: no write. */
export type LocalDecision = { admitted: true; remaining: number } | { admitted: false; refusedUntil: number };

/** One process's lease on one key. */
export class KeyLease {
  /** The window (rate-window.ts `windowIndex`) the slots and the refusal belong to. */
  private window = -1;
  /** Slots leased and not used yet. */
  private slots = 0;
  /** The window's count after this process's last write (all processes' slots). */
  private windowCount = 0;
  /** The window's capacity when it was last computed. */
  private capacity = 0;
  /** Until when (epoch ms) the window is known to be full. */
  private refusedUntil = 0;
  /** The key's `rate_limit` the slots were leased, or the refusal decided, under. */
  private rateLimit = 0;
  /** The size of the next block. */
  private block = 1;
  /** When the current block was taken (epoch ms). */
  private takenAt = 0;
  /** Uses admitted or refused in memory, not written yet. */
  private readonly pending: PendingUses;
  /** The write of this key under way in this process, if any: one at a time (`exclusive`); its waiters grow the next block. */
  private readonly write = new OneWrite();

  constructor(private readonly settings: LeaseSettings) {
    this.pending = new PendingUses(settings.flushAfterMs);
  }

  /**
   * Admits or refuses a use from memory, or undefined when it needs a write:
   * no slot left and the window not known to be full, or pending uses due.
   * A key whose `rate_limit` changed since the last write is decided by a
   * write: slots leased under the old limit are dropped (they stay counted
   * in the window), and a window full under it may have room under the new.
   */
  decide(use: UseCounted, window: number, rateLimit: number): LocalDecision | undefined {
    const now = use.at.getTime();
    if (window !== this.window || rateLimit !== this.rateLimit) {
      this.window = window;
      this.slots = 0;
      this.refusedUntil = 0;
    }
    if (this.pending.due(now)) return undefined;
    if (this.slots > 0) {
      this.slots -= 1;
      this.pending.add(use, true);
      return { admitted: true, remaining: Math.max(0, Math.floor(this.capacity - this.windowCount)) + this.slots };
    }
    if (now < this.refusedUntil) {
      this.pending.add(use, false);
      return { admitted: false, refusedUntil: this.refusedUntil };
    }
    return undefined;
  }

  /** Whether `decide` would admit or refuse a use at `now` from memory (without deciding it). */
  decidesLocally(now: number, window: number, rateLimit: number): boolean {
    if (window !== this.window || rateLimit !== this.rateLimit) return false;
    return this.slots > 0 || now < this.refusedUntil;
  }

  /** Uses not written yet, or a write of them under way. */
  busy(): boolean {
    return this.pending.has() || this.write.writing();
  }

  /** Nothing pending and no write under way: the lease may be evicted. */
  idle(): boolean {
    return !this.busy();
  }

  /** Whether a write of this key is under way in this process. */
  writing(): boolean {
    return this.write.writing();
  }

  /** Waits for the write under way (its outcome is its caller's); `forSlot`: the waiter wants a slot, so the next block grows by one. */
  afterWrite(forSlot: boolean): Promise<void> {
    return this.write.afterWrite(forSlot);
  }

  /**
   * Runs `write` as the one write of this key in this process, handing it
   * the pending uses (taken from the lease). Call it right after `writing()`
   * answered false, with no await in between. When the write fails, the
   * uses it carried are pending again, `retry` is armed as the flush timer,
   * and the error is the caller's.
   */
  async exclusive<T>(write: (pending: UsageDelta | undefined) => Promise<T>, retry: () => void): Promise<T> {
    const since = this.pending.startedAt();
    const pending = this.pending.take();
    try {
      return await this.write.run(() => write(pending));
    } catch (error) {
      this.pending.restore(pending, since);
      this.onPending(retry);
      throw error;
    }
  }

  /** Whether uses are pending (admitted or refused in memory, not written yet). */
  hasPending(): boolean {
    return this.pending.has();
  }

  /** Arms the timer that writes pending uses of a key that goes quiet. */
  onPending(flush: () => void): void {
    this.pending.arm(flush, this.pending.has());
  }

  /**
   * The block the next write asks for: 1 while the previous window's count
   * is unknown (`maxCurrent` is then only an upper bound), else the grown or
   * shrunk block, at least the requests waiting, at most a share of the room.
   */
  nextBlock(now: number, window: number, maxCurrent: number, previousKnown: boolean): number {
    if (!previousKnown) return 1;
    if (this.takenAt > 0) {
      const lasted = now - this.takenAt;
      if (lasted < this.settings.growBelowMs) this.block *= 2;
      else if (lasted > this.settings.shrinkAboveMs) this.block = Math.max(1, Math.floor(this.block / 2));
    }
    const wanted = Math.max(this.block, this.write.waiting + 1);
    const known = window === this.window ? this.windowCount : 0;
    const share = Math.floor((maxCurrent - known) * this.settings.roomShare);
    this.block = Math.max(1, Math.min(wanted, this.settings.maxBlock, Math.max(1, share), maxCurrent));
    return this.block;
  }

  /** After a write that took `block` slots (this request's included): the rest are leased. */
  leased(window: number, rateLimit: number, block: number, windowCount: number, capacity: number, at: number): void {
    this.window = window;
    this.rateLimit = rateLimit;
    this.slots = block - 1;
    this.windowCount = windowCount;
    this.capacity = capacity;
    this.refusedUntil = 0;
    this.takenAt = at;
  }

  /** After a write that found the window full under `rateLimit`: refuse from memory until `until` (epoch ms). */
  full(window: number, rateLimit: number, until: number): void {
    this.window = window;
    this.rateLimit = rateLimit;
    this.slots = 0;
    this.refusedUntil = until;
  }
}

/** The leases of one process, by key id; bounded (the least recently used without pending uses go first). */
export class KeyLeases extends LeaseMap<KeyLease, LeaseSettings> {
  protected make(): KeyLease {
    return new KeyLease(this.settings);
  }

  /** Whether this process holds uses of `keyId` not written yet (or is writing them). */
  hasPending(keyId: string): boolean {
    return this.peek(keyId)?.busy() ?? false;
  }

  /** Keys with pending uses. */
  withPending(): string[] {
    return this.busy();
  }
}
