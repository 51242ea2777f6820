/**
 * One admission for a key or identity with named limits or credits
 * (docs/limits.md): the key's hourly limit, every applicable named limit of
 * the key and of its identity, and the credits are checked and consumed all
 * or nothing, with the use recorded in the same write.
 *
 * - Key only: one conditional UpdateItem of the key's usage item (its meter).
 * - Key and identity: one TransactWriteItems of both meters.
 *
 * Every condition asserts what the decision rests on (meter-clauses.ts). A
 * failed condition returns the meter as it was; that copy is judged exactly
 * (domain/meters.ts `judgeMeter`): a refusal consumes nothing anywhere and
 * is recorded as a use without a slot, as the hourly limit's refusals are;
 * otherwise the write goes again with what was learned. A refusal is thus
 * always decided on a consistent copy of the meter that refused, and an
 * admission only by a write whose every condition held.
 *
 * Cost: an admitted verification of a key with its own limits and credits is
 * one write (ALL_NEW gives its figures); through an identity it is one
 * transaction, exact when it can be (admission-writes.ts: its assertions
 * give the figures), else followed by a consistent read of both meters. A hot
 * key takes blocks (domain/meter-lease.ts), of its own meter and of its
 * identity's: mostly no write per verification; the lease's flush and
 * give-back writes are meter-returns.ts. A use its identity refuses while
 * other keys' blocks here hold part of it has them given back, then retried.
 */
import type { ItemKey } from '../contract/tables';
import { randomBytes } from 'node:crypto';
import { meterViewOf, type MeterView } from '../domain/meters';
import { MeterLeases, withHeldSlots, withSpare, type MeterLease } from '../domain/meter-lease';
import { DEFAULT_LEASE_SETTINGS, type LeaseSettings } from '../domain/usage-lease';
import type { Clock } from '../platform/clock';
import { flushHolding, flushLeased, giveBack } from './meter-returns';
import type { RecordUseResult } from '../domain/recording';
import { RecentMap } from '../platform/recent-map';
import { UsageDelta } from '../domain/usage-delta';
import type { UsageItem } from '../domain/model';
import { countedOf } from './usage-writes';
import { admissionWrites, Exactness, meterName } from './admission-writes';
import { writeBoth, writeOne } from './meter-writes';
import { recordWithoutSlot } from './usage-windows';
import type { StoreTables } from './transactions';
import type { UsageMonths } from './usage-months';
import { USAGE } from './entities/usage';
import { IDENTITY } from './entities/identity';
import { blockOf, blockWanted, counterLive, figuresOf, refusalOf, shapeOf, type MeteredUse, type MeterPart, type MeterRefusal } from './meter-judgement';
import type { OperationsOf } from '../contract/store-operations';
import { sendDueNotices } from './credit-notices';

export type { MeteredUse };

/** Writes before the admission gives up (each failed one learned a newer meter); then the use is refused, never over-admitted. */
const MAX_ATTEMPTS = 8;

/** The meters a lease's flush or give-back writes: the key's, and its identity's when its block took part of it. */
const metersOf = (keyId: string, identityId: string | undefined): ItemKey[] => [USAGE.key(keyId), ...(identityId ? [IDENTITY.key(identityId)] : [])];

/** Each public method of MeteredUses and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const METERED_USES_OPERATIONS = {
  admit: ['admitMeteredUse', 'admitSharedMeteredUse', 'recordUse'],
  releaseAll: ['admitMeteredUse'],
  settle: ['admitMeteredUse'],
  settleIdentity: ['admitMeteredUse'],
  holds: [],
} as const satisfies OperationsOf<MeteredUses>;

export class MeteredUses {
  /** Each meter as this process last saw it: the assumptions the next write asserts. */
  private readonly seen = new RecentMap<string, MeterView>(10_000);

  /** Which admission writes may be exact (admission-writes.ts). */
  private readonly exactness = new Exactness();

  /** This process's leases on hot metered keys (domain/meter-lease.ts). */
  private readonly leases: MeterLeases;

  constructor(
    private readonly tables: StoreTables,
    private readonly months: UsageMonths,
    private readonly clock: Clock,
    leaseSettings: LeaseSettings = DEFAULT_LEASE_SETTINGS,
  ) {
    this.leases = new MeterLeases(leaseSettings);
  }

  /**
   * Admits or refuses `use` (see the module comment); the use is recorded
   * either way. A hot key is admitted from this process's lease while its
   * block lasts (domain/meter-lease.ts), through its identity's meter too.
   */
  async admit(use: MeteredUse): Promise<RecordUseResult> {
    if (!this.leases.settings.enabled) return this.written(use);
    const lease = this.leases.of(use.keyId);
    const counted = countedOf(use);
    for (;;) {
      // One write of a key at a time in a process: the others wait for its block.
      if (lease.writing()) await lease.afterWrite(true);
      else {
        const local = lease.decide(counted, shapeOf(use));
        if (local === 'flush') await lease.exclusive(() => this.flush(use.keyId, lease));
        else if (local) {
          lease.onPending(() => void this.tend(use.keyId));
          return this.withHeldSlots(use, { admitted: true, ...local });
        } else if (lease.holds()) await lease.exclusive(() => this.giveBack(use.keyId, lease));
        else {
          const result = await lease.exclusive(() => this.written(use, lease));
          // A block taken: its timer gives back what it does not use if the key goes quiet.
          lease.onPending(() => void this.tend(use.keyId));
          return this.withHeldSlots(use, result);
        }
      }
    }
  }

  /** Writes the uses this process admitted of `keyId` from a lease, and what its holding still holds (before a read of the key's meter). */
  async settle(keyId: string): Promise<void> {
    const lease = this.leases.peek(keyId);
    if (!lease) return;
    while (lease.writing()) await lease.afterWrite(false);
    if (lease.hasPending()) await lease.exclusive(() => this.flush(keyId, lease));
  }

  /** `settle` for every key whose lease holds part of the identity's meter, or of any identity's when none is named (before a read of them). */
  async settleIdentity(identityId?: string): Promise<void> {
    const holdsPart = (keyId: string) => {
      const held = this.leases.peek(keyId)?.identityId();
      return held !== undefined && (identityId === undefined || held === identityId);
    };
    const keyIds = this.leases.holding().filter(holdsPart);
    await Promise.all(keyIds.map((keyId) => this.settle(keyId)));
  }

  /** Whether this process holds uses of `keyId` from a lease not written yet, or leased capacity (a read of its meter must settle first). */
  holds(keyId: string): boolean {
    return this.leases.peek(keyId)?.holds() ?? false;
  }

  /** Gives back what every lease of this process holds (a clean shutdown). */
  async releaseAll(): Promise<void> {
    await Promise.all(this.leases.holding().map((keyId) => this.tend(keyId, true)));
  }

  /** The timer of a lease: its pending uses written while its block lasts, else (or at `end`) the block given back. */
  private async tend(keyId: string, end = false): Promise<void> {
    const lease = this.leases.of(keyId);
    while (lease.writing()) await lease.afterWrite(false);
    const ending = end || !lease.hasPending() || lease.expired(this.clock.now().getTime());
    // A failed write (a throttled table, a network error) is kept for the next verification or the next timer.
    await lease.exclusive(() => (ending ? this.giveBack(keyId, lease) : this.flush(keyId, lease))).catch(() => undefined);
    lease.onPending(() => void this.tend(keyId));
  }

  /** The pending uses to the key's meter, and what the holding still holds to the meter it is on. */
  private async flush(keyId: string, lease: MeterLease): Promise<void> {
    const since = lease.pendingStartedAt();
    const pending = lease.takePending();
    const [hold, identityId] = [lease.holding(), lease.identityId()];
    this.exactness.changed(metersOf(keyId, identityId));
    await flushLeased(this.tables, keyId, pending, [], hold?.on === 'key' ? hold : undefined, lease.unspent()).catch((error: unknown) => {
      lease.restore(pending, since);
      throw error;
    });
    if (hold?.on === 'identity' && identityId) await flushHolding(this.tables, identityId, hold, lease.unspent());
  }

  private async giveBack(keyId: string, lease: MeterLease): Promise<void> {
    this.exactness.changed(metersOf(keyId, lease.identityId()));
    const end = lease.end();
    const now = this.clock.now().getTime();
    try {
      await giveBack(this.tables, keyId, end, [], (counter) => counterLive(counter, now));
    } catch (error) {
      // The uses are kept; what the block held stays taken (never given back twice).
      lease.restore(end.pending, end.pending?.lastAt.getTime() ?? now);
      throw error;
    }
  }

  /** Gives back the blocks this process's other keys hold of the identity's meter; whether any (across processes a block holds until it ends). */
  private async releaseIdentityHolds(identityId: string, keyId: string): Promise<boolean> {
    // Each taken right after holdersOf saw it idle, with no await in between (OneWrite.run).
    const givingBack = this.leases
      .holdersOf(identityId, keyId)
      .map(([other, lease]) => lease.exclusive(() => this.giveBack(other, lease)).catch(() => undefined));
    await Promise.all(givingBack);
    return givingBack.length > 0;
  }

  /** One admission by writes (see the module comment); with a lease, the first may take a block. */
  private async written(use: MeteredUse, lease?: MeterLease): Promise<RecordUseResult> {
    const parts: MeterPart[] = [{ owner: 'key', key: USAGE.key(use.keyId), def: use.keyDef }];
    if (use.identity) parts.push({ owner: 'identity', key: IDENTITY.key(use.identity.id), def: use.identity.def });
    const delta = new UsageDelta().add(countedOf(use));
    // The identity as the verification read it (up to 10 s old): the first assumptions of a process that never wrote its meter.
    if (use.identity?.item && !this.viewOf(parts[1]!.key)) this.remember(parts[1]!.key, use.identity.item);
    let released = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const copied = this.months.toRemove(use.keyId);
      const taking =
        lease && attempt === 0
          ? blockWanted(use, parts, this.viewOf, (room) => lease.nextBlock(use.at.getTime(), room), {
              holdMs: this.leases.settings.holdMs,
              holdId: () => randomBytes(9).toString('base64url'),
            })
          : undefined;
      const writes = admissionWrites({
        use,
        parts,
        viewOf: this.viewOf,
        delta,
        copied,
        taking,
        holdMs: this.leases.settings.holdMs,
        exact: attempt < 2 && this.exactness.allows(use, parts, this.viewOf),
      });
      const outcome = await this.exactness.inFlight(parts, () =>
        writes.length === 1
          ? writeOne(this.tables, this.remember, writes[0]!.part, writes[0]!.clauses)
          : writeBoth(
              this.tables,
              this.remember,
              writes.map((w) => w.clauses),
              writes.map((w) => w.part),
            ),
      );
      if (outcome === 'conflict') {
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
        continue;
      }
      if ('written' in outcome) {
        const item = outcome.written && USAGE.read(outcome.written);
        if (item) await this.afterWrite(item, copied, use.at);
        else {
          // An exact write: the meters after it are known (admission-writes.ts).
          this.months.removed(use.keyId, copied);
          for (const { part, clauses } of writes) if (clauses.after) this.seen.set(meterName(part.key), clauses.after);
        }
        const figures = figuresOf(use, parts, this.viewOf);
        await sendDueNotices(this.tables, use, parts, this.viewOf, false);
        const block = taking?.block ?? 1;
        lease?.wrote(use.at.getTime());
        if (lease && block > 1) this.leases.took(use.keyId, lease, blockOf(use, block, figures, taking?.hold, writes.length > 1));
        return { admitted: true, ...withSpare(figures, block - 1, 0) };
      }
      // A condition failed: judge the meters as they were (an identity gone meanwhile takes no part), under their own definitions.
      if (outcome.missing.includes('key')) return { admitted: false, reason: 'NO_USAGE_ITEM' };
      if (outcome.missing.includes('identity')) parts.pop();
      for (const part of parts) part.def = this.viewOf(part.key)?.def ?? part.def;
      const refusal = refusalOf(use, parts, this.viewOf);
      // Refused by the identity while this process's other keys hold blocks of it: what they hold is this use's to take.
      if (refusal?.byIdentity && !released && attempt < MAX_ATTEMPTS - 3) {
        released = await this.releaseIdentityHolds(use.identity?.id as string, use.keyId);
        if (released) continue;
      }
      if (refusal) return this.refuse(use, parts, delta, refusal);
    }
    return this.refuse(use, parts, delta, { reason: 'RATE_LIMITED', retryAt: use.at.getTime() + 1000, hourlyRefused: false, byIdentity: false });
  }

  /** After a write that returned the key's usage item: its old days copied (usage-months.ts). */
  private async afterWrite(item: UsageItem, copied: string[], at: Date): Promise<void> {
    await this.months.afterWrite(item, copied, at);
    this.exactness.sawWhole(item.key_id, at);
  }

  /** The answer's figures with the identity's slots this process's other keys' blocks hold unused counted back (domain/meter-lease.ts). */
  private withHeldSlots(use: MeteredUse, result: RecordUseResult): RecordUseResult {
    if (!use.identity || !('meters' in result) || !result.meters) return result;
    const at = use.at.getTime();
    return { ...result, meters: withHeldSlots(result.meters, this.leases.heldSlotsOf(use.identity.id, use.keyId, at), at) };
  }

  /** A meter as this process last saw it. */
  private readonly viewOf = (key: ItemKey): MeterView | undefined => this.seen.get(meterName(key));

  private readonly remember = (key: ItemKey, item: Record<string, unknown>): void => {
    this.seen.set(meterName(key), meterViewOf(item));
    this.exactness.seen(key);
  };

  private async refuse(use: MeteredUse, parts: MeterPart[], delta: UsageDelta, refusal: MeterRefusal): Promise<RecordUseResult> {
    const copied = this.months.toRemove(use.keyId);
    const item = await recordWithoutSlot(this.tables, use.keyId, delta, copied);
    if (!item) return { admitted: false, reason: 'NO_USAGE_ITEM' };
    await this.afterWrite(item, copied, use.at);
    this.remember(USAGE.key(use.keyId), item as unknown as Record<string, unknown>);
    const { rateLimit, meters } = figuresOf(use, parts, this.viewOf);
    if (refusal.reason === 'USAGE_EXCEEDED') {
      await sendDueNotices(this.tables, use, parts, this.viewOf, true);
      return { admitted: false, reason: 'USAGE_EXCEEDED', rateLimit, meters };
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((refusal.retryAt - use.at.getTime()) / 1000));
    // The hourly figures stay the hourly limit's own unless it refused too; Retry-After is the limits' together.
    const hourly = refusal.hourlyRefused ? { ...rateLimit, remaining: 0, retryAfterSeconds } : rateLimit;
    return { admitted: false, reason: 'RATE_LIMITED', rateLimit: hourly, meters: { ...meters, retryAfterSeconds } };
  }
}
