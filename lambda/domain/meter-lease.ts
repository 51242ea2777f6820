/**
 * Leased capacity for hot metered keys (docs/limits.md, "Hot keys"): what
 * one process holds of a key whose named limits and credits, its own or its
 * identity's, meter its verifications, so that a key verified many times a
 * second is not written once per verification.
 *
 * An admission write (store/metered-use.ts) may take a *block* of B uses
 * instead of one: B slots of the hourly window and of every named limit the
 * verification counts in (the key's and its identity's), and B × cost
 * credits of the meter charged, all or nothing under the same conditions as
 * one use. The process then admits the next B - 1
 * verifications of the same *shape* (the same definitions, scopes counted,
 * cost, windows and refill period) from memory, and keeps their uses as
 * pending (the usage item's counts), written within `flushAfterMs`.
 *
 * Nothing is ever admitted beyond what was taken: slots count in their
 * window whether used or not, and credits leave the balance when taken. The
 * credits taken and not spent are recorded on the meter as a *holding*
 * (`cr_h.<id>`: `{n, exp, p}`), which reads add back, so a balance shown
 * does not drop by what a lease holds; each flush brings `n` down to what is
 * still unspent. A block ends when it is used up, when a verification of
 * another shape comes, at `holdMs` after it was taken (even in a sandbox
 * that froze: it admits nothing after that, and reads stop counting its
 * holding), or at shutdown; what it did not use is then given back (slots
 * to their windows, credits to the balance while the holding is still
 * there and the refill period is the same). A holding nobody gave back (a
 * sandbox that never ran again) is dropped by later writes, so the credits
 * one frozen block held are at most what it took.
 *
 * The block starts at 1 (one write per verification) and doubles while a
 * block lasts less than `growBelowMs`, up to `maxBlock` and a share
 * (`roomShare`) of the room left in every limit and of the credits left.
 */
import type { UsageDelta, UseCounted } from './usage-delta';
import { LeaseMap, OneWrite, PendingUses } from './lease-parts';
import type { LeaseSettings } from './usage-lease';
import type { MeterFigures } from './recording';
import type { RateLimitState } from './rate-window';
import { counterName, limitWindow, type Holding, type MeterOwner } from './meters';

/** A block as its write left it. */
export interface MeterBlock {
  /** What the block was taken for: a verification of another shape needs a write. */
  shape: string;
  /** Uses taken, the verification that took them included. */
  size: number;
  /** Credits one use costs (0: none charged). */
  cost: number;
  /** Figures right after the write, the block's unused uses not yet counted back. */
  rateLimit: RateLimitState;
  meters: MeterFigures;
  /** The counters the block's slots count in (attribute paths), given back at its end: the key's, and its identity's when the block took part of it. */
  counters: { limits: string[]; hourly: string; identity?: { id: string; limits: string[] } };
  /** The credits holding (`cr_h.<id>`), when credits were taken, and whose meter it is on (the meter charged). */
  hold?: { id: string; on: MeterOwner } & Holding;
  takenAt: number;
}

/** What a block leaves to give back: its unused uses, and the uses admitted from it not written yet. */
export interface MeterLeaseEnd {
  block?: MeterBlock;
  unused: number;
  pending?: UsageDelta;
}

/** A use admitted from memory: its answer's figures. */
export interface LeasedAdmission {
  rateLimit: RateLimitState;
  meters: MeterFigures;
}

/** Figures a write left, with `spare` uses of a block still this process's (their slots counted back) and `spent` credits spent since. */
export function withSpare(figures: LeasedAdmission, spare: number, spent: number): LeasedAdmission {
  const { credits } = figures.meters;
  return {
    rateLimit: { ...figures.rateLimit, remaining: figures.rateLimit.remaining + spare },
    meters: {
      ...figures.meters,
      limits: figures.meters.limits.map((figure) => ({ ...figure, remaining: figure.remaining + spare })),
      ...(credits ? { credits: { remaining: credits.remaining - spent } } : {}),
    },
  };
}

/**
 * Figures with the identity's slots that other keys' blocks in this process
 * hold unused counted back: a use the identity refuses has those blocks
 * given back first (store/metered-use.ts), so they are this key's to take.
 */
export function withHeldSlots(figures: MeterFigures, held: ReadonlyMap<string, number>, at: number): MeterFigures {
  if (held.size === 0) return figures;
  const limits = figures.limits.map((figure) => {
    const counter = counterName(figure, limitWindow(at, figure.window_seconds).index);
    const spare = figure.owner === 'identity' ? (held.get(counter) ?? 0) : 0;
    return spare > 0 ? { ...figure, remaining: Math.min(figure.limit, figure.remaining + spare) } : figure;
  });
  return { ...figures, limits };
}

/** One process's lease on one metered key. */
export class MeterLease {
  private block: MeterBlock | undefined;
  /** Uses admitted from the block (the one that took it excluded). */
  private used = 0;
  private readonly pending: PendingUses;
  private readonly write = new OneWrite();
  private nextSize = 1;
  /** When this process's last admission write of the key was sent (epoch ms). */
  private lastWriteAt: number | undefined;

  constructor(private readonly settings: LeaseSettings) {
    this.pending = new PendingUses(settings.flushAfterMs);
  }

  /** Admits `use` of `shape` from the block, or 'flush' when pending uses are due first, or undefined when a write must decide it. */
  decide(use: UseCounted, shape: string): LeasedAdmission | 'flush' | undefined {
    const now = use.at.getTime();
    const block = this.block;
    if (!block || block.shape !== shape || this.used >= block.size - 1 || now >= block.takenAt + this.settings.holdMs) return undefined;
    if (this.pending.due(now)) return 'flush';
    this.used += 1;
    this.pending.add(use, true);
    return this.figures(block);
  }

  /** The answer's figures now: what the write left, with the uses the block has not spent yet counted back. */
  private figures(block: MeterBlock): LeasedAdmission {
    return withSpare(block, block.size - 1 - this.used, this.used * block.cost);
  }

  /** Whether the block's time is over (it admits nothing more). */
  expired(now: number): boolean {
    return this.block !== undefined && now >= this.block.takenAt + this.settings.holdMs;
  }

  hasPending(): boolean {
    return this.pending.has();
  }

  /** The credits the block holds and has not spent (what its holding should say). */
  unspent(): number {
    return this.block ? (this.block.size - 1 - this.used) * this.block.cost : 0;
  }

  /** Whether the block has uses left to give back, or uses are pending. */
  holds(): boolean {
    return this.pending.has() || (this.block !== undefined && this.used < this.block.size - 1);
  }

  /** Holds nothing and writes nothing: the lease may be evicted. */
  idle(): boolean {
    return !this.holds() && !this.writing();
  }

  /** The block's holding, if any. */
  holding(): MeterBlock['hold'] {
    return this.block?.hold;
  }

  /** The identity whose meter the block took part of, if any. */
  identityId(): string | undefined {
    return this.block?.counters.identity?.id;
  }

  /** The identity's limit counters the block's unused uses hold slots of, and how many (none once it is over). */
  heldOf(identityId: string, now: number): { counters: readonly string[]; spare: number } | undefined {
    const block = this.block;
    if (!block?.counters.identity || !this.holdsPartOf(identityId) || this.expired(now)) return undefined;
    return { counters: block.counters.identity.limits, spare: block.size - 1 - this.used };
  }

  /** Whether the block has uses left that hold part of `identityId`'s meter. */
  holdsPartOf(identityId: string): boolean {
    return this.block?.counters.identity?.id === identityId && this.used < this.block.size - 1;
  }

  /** Ends the block: what it leaves to give back (the lease forgets it). */
  end(): MeterLeaseEnd {
    const end: MeterLeaseEnd = { block: this.block, unused: this.block ? this.block.size - 1 - this.used : 0, pending: this.takePending() };
    this.block = undefined;
    this.used = 0;
    return end;
  }

  /** The pending uses, handed to a write; `restore` gives them back if it fails. */
  takePending(): UsageDelta | undefined {
    return this.pending.take();
  }

  restore(delta: UsageDelta | undefined, since: number): void {
    this.pending.restore(delta, since);
  }

  pendingStartedAt(): number {
    return this.pending.startedAt();
  }

  /** Arms the timer that writes the pending uses of a key that goes quiet, and gives back a block it stopped using. */
  onPending(flush: () => void): void {
    this.pending.arm(flush, this.pending.has() || this.block !== undefined);
  }

  writing(): boolean {
    return this.write.writing();
  }

  afterWrite(forUse: boolean): Promise<void> {
    return this.write.afterWrite(forUse);
  }

  /** Runs `write` as the one write of this key in this process (lease-parts.ts `OneWrite`). */
  exclusive<T>(write: () => Promise<T>): Promise<T> {
    return this.write.run(write);
  }

  /**
   * The size of the next block: 1 for a first write or when `room` (the
   * most uses every limit and the credits leave) is unknown, else grown
   * (doubled while blocks last less than `growBelowMs`) or shrunk, at
   * least the verifications waiting, at most `maxBlock` and a share of the room.
   */
  nextBlock(now: number, room: number | undefined): number {
    if (room === undefined || room < 2) return 1;
    if (this.lastWriteAt !== undefined) {
      const lasted = now - this.lastWriteAt;
      if (lasted < this.settings.growBelowMs) this.nextSize *= 2;
      else if (lasted > this.settings.shrinkAboveMs) this.nextSize = Math.max(1, Math.floor(this.nextSize / 2));
    }
    const wanted = Math.max(this.nextSize, this.write.waiting + 1);
    this.nextSize = Math.max(1, Math.min(wanted, this.settings.maxBlock, Math.floor(room * this.settings.roomShare)));
    return this.nextSize;
  }

  /** After an admission write at `at` (the growth of the next block is timed from it). */
  wrote(at: number): void {
    this.lastWriteAt = at;
  }

  /** After a write that took `block`: the admissions from memory start. */
  took(block: MeterBlock): void {
    this.block = block;
    this.used = 0;
  }
}

/** The metered leases of one process, by key id; bounded (the least recently used that hold nothing go first). */
export class MeterLeases extends LeaseMap<MeterLease, LeaseSettings> {
  protected make(): MeterLease {
    return new MeterLease(this.settings);
  }

  /** Keys whose lease holds uses or pending uses. */
  holding(): string[] {
    return this.busy();
  }

  /** The keys whose blocks took part of each identity's meter (pruned when found holding none of it). */
  private readonly holdersByIdentity = new Map<string, Set<string>>();

  /** `lease.took(block)`, the key noted among the holders of its identity's meter when the block took part of it. */
  took(keyId: string, lease: MeterLease, block: MeterBlock): void {
    lease.took(block);
    const identityId = block.counters.identity?.id;
    if (identityId === undefined) return;
    const holders = this.holdersByIdentity.get(identityId) ?? new Set<string>();
    this.holdersByIdentity.set(identityId, holders.add(keyId));
  }

  /** The leases of keys other than `keyId` whose blocks hold part of `identityId`'s meter (no scan of every lease: a verification asks). */
  private holdingPartOf(identityId: string, keyId: string): [string, MeterLease][] {
    const holders = this.holdersByIdentity.get(identityId);
    const found: [string, MeterLease][] = [];
    for (const other of holders ?? []) {
      const lease = this.peek(other);
      if (!lease?.holdsPartOf(identityId)) holders?.delete(other);
      else if (other !== keyId) found.push([other, lease]);
    }
    if (holders?.size === 0) this.holdersByIdentity.delete(identityId);
    return found;
  }

  /** The slots of `identityId`'s limits the blocks of keys other than `keyId` hold unused, by counter. */
  heldSlotsOf(identityId: string, keyId: string, now: number): Map<string, number> {
    const held = new Map<string, number>();
    for (const [, lease] of this.holdingPartOf(identityId, keyId)) {
      const part = lease.heldOf(identityId, now);
      for (const counter of part?.counters ?? []) held.set(counter, (held.get(counter) ?? 0) + (part?.spare ?? 0));
    }
    return held;
  }

  /** The leases of keys other than `keyId` whose blocks hold part of `identityId`'s meter and that no write is using now. */
  holdersOf(identityId: string, keyId: string): [string, MeterLease][] {
    return this.holdingPartOf(identityId, keyId).filter(([, lease]) => !lease.writing());
  }
}
