/**
 * What both kinds of lease hold (usage-lease.ts for the hourly limit,
 * meter-lease.ts for named limits and credits): the uses admitted from
 * memory and not written yet, with the timer that writes them when the key
 * goes quiet; the one write of a key a process sends at a time, with the
 * requests waiting for it; and the process's leases by key.
 */
import { UsageDelta, type UseCounted } from './usage-delta';

/** Uses counted in memory and not written yet. */
export class PendingUses {
  private delta: UsageDelta | undefined;
  private since = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly flushAfterMs: number) {}

  /** `admitted`: admitted from the block (a VALID use when eligible), else refused from memory. */
  add(use: UseCounted, admitted: boolean): void {
    if (!this.delta) {
      this.delta = new UsageDelta();
      this.since = use.at.getTime();
    }
    this.delta.add(use, admitted);
  }

  has(): boolean {
    return this.delta !== undefined;
  }

  /** When the oldest pending use was counted (epoch ms); 0 without any. */
  startedAt(): number {
    return this.delta ? this.since : 0;
  }

  /** Whether the oldest pending use must be written by `now`. */
  due(now: number): boolean {
    return this.delta !== undefined && now - this.since >= this.flushAfterMs;
  }

  /** The pending uses, handed to a write (forgotten here; `restore` gives them back if the write fails). */
  take(): UsageDelta | undefined {
    const delta = this.delta;
    this.delta = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return delta;
  }

  restore(delta: UsageDelta | undefined, since: number): void {
    if (!delta || delta.count === 0) return;
    this.delta = this.delta ? delta.merge(this.delta) : delta;
    this.since = Math.min(this.since || since, since);
  }

  /** Arms the timer that calls `flush` `flushAfterMs` from now, unless it is armed or `needed` is false. */
  arm(flush: () => void, needed: boolean): void {
    if (this.timer || !needed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      flush();
    }, this.flushAfterMs);
    this.timer.unref?.();
  }
}

/** The one write of a key a process sends at a time, and the requests that wait for it wanting a use from it. */
export class OneWrite {
  private inflight: Promise<void> | undefined;
  /** Requests waiting for the write under way that want a use from it (the next block grows by them). */
  waiting = 0;

  writing(): boolean {
    return this.inflight !== undefined;
  }

  /** Waits for the write under way (its outcome is its caller's); `forUse`: the waiter wants a use from it. */
  async afterWrite(forUse: boolean): Promise<void> {
    if (forUse) this.waiting += 1;
    try {
      await this.inflight?.catch(() => undefined);
    } finally {
      if (forUse) this.waiting -= 1;
    }
  }

  /** Runs `write` as the one write under way (call it right after `writing()` answered false, with no await in between). */
  async run<T>(write: () => Promise<T>): Promise<T> {
    if (this.inflight) throw new Error('a write of this key is under way in this process');
    let result: { value: T } | undefined;
    this.inflight = write()
      .then((value) => {
        result = { value };
      })
      .finally(() => {
        this.inflight = undefined;
      });
    await this.inflight;
    return (result as { value: T }).value;
  }
}

/** A lease that can say whether it holds nothing (no pending uses, no write under way, nothing leased that must be given back). */
export interface IdleAware {
  idle(): boolean;
}

/** A process's leases by key id, least recently used first; bounded: a new one past `capacity` evicts the least recently used idle one. */
export abstract class LeaseMap<L extends IdleAware, S> {
  private readonly leases = new Map<string, L>();

  constructor(
    readonly settings: S,
    private readonly capacity = 10_000,
  ) {}

  /** A new lease under `settings`. */
  protected abstract make(): L;

  of(keyId: string): L {
    let lease = this.leases.get(keyId);
    if (lease) this.leases.delete(keyId);
    else {
      lease = this.make();
      this.evict();
    }
    this.leases.set(keyId, lease);
    return lease;
  }

  /** The lease of `keyId`, if the process has one (its recency unchanged). */
  peek(keyId: string): L | undefined {
    return this.leases.get(keyId);
  }

  /** Keys whose lease is not idle. */
  busy(): string[] {
    return [...this.leases].filter(([, lease]) => !lease.idle()).map(([keyId]) => keyId);
  }

  private evict(): void {
    if (this.leases.size < this.capacity) return;
    for (const [keyId, lease] of this.leases) {
      if (lease.idle()) {
        this.leases.delete(keyId);
        return;
      }
    }
  }
}
