/**
 * The usage store: the writes that record a use and take a rate-limit slot
 * (the algorithm is in rate-window.ts), and the read of a key's usage
 * figures (`recordUse`, `readUsage` in lambda/contract/store-operations.ts).
 *
 * The same write records the use (last_used_at, last_valid_at, total_requests,
 * per-day and per-transition counts), so an admitted request costs at most
 * one write. A refused request is still an authenticated use, recorded by a
 * second write without a slot. A hot key's writes take a block of slots and
 * carry the uses the process admitted or refused from it in memory
 * (usage-lease.ts): mostly no write per request. A use may also be written
 * before the read that decides it, and taken back (`recordUseAhead`,
 * early-use.ts). The usage item keeps the last `USAGE_DAYS_KEPT` days only;
 * older days move to month items (usage-months.ts).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batch-get';
import type { RecordUseResult, UseToRecord } from '../domain/recording';
import { INLINE_TIDY_WINDOWS, MAX_WINDOWS_REMOVED_PER_WRITE, admittedAtAfter, countedOf, decidedLocally, refusedUntil } from './usage-writes';
import { earlyUse, newEarlyToken, takeBackUse, type EarlyUse } from './early-use';
import { UsageMonths } from './usage-months';
import { admittingClauses } from './last-valid';
import { UsageChanges } from './usage-changes';
import { recordWithoutSlot, releaseSlots, removeWindows } from './usage-windows';
import type { UsageItem } from '../domain/model';
import type { StoreTables } from './transactions';
import type { MeteredSettler } from './process-memory';
import type { EndedWindows } from '../domain/ended-windows';
import { elapsedFraction, windowCapacity, windowIndex, windowResetAt } from '../domain/rate-window';
import type { KeyLease, KeyLeases } from '../domain/usage-lease';
import { UsageDelta } from '../domain/usage-delta';
import { creditsOf, lastUseOf, summariseUsage, transitionEntriesOf, type LastUse, type UsageSummary } from '../domain/usage-figures';
import type { OperationsOf } from '../contract/store-operations';
import { USAGE } from './entities/usage';
import { updateExpressionOf } from './update-expressions';

export class UsageStore {
  /** The month items, and the days this process copied there (removed from the usage item by its next write). */
  readonly months: UsageMonths;
  /** Per key: the changes this process has started on its usage item (see `readMark`). */
  private readonly changes = new UsageChanges();

  constructor(
    private readonly tables: StoreTables,
    /** This process's memory of ended windows' counts. */
    readonly endedWindows: EndedWindows,
    /** This process's leases on hot keys (usage-lease.ts); none: every use is its own write (a function off the hot path). */
    private readonly leases: KeyLeases | undefined,
    /** The metered leases of this process (process-memory.ts): settled before a read of a usage item. */
    private readonly meteredSettlers: ReadonlySet<MeteredSettler> = new Set(),
  ) {
    this.months = new UsageMonths(tables);
  }

  /**
   * Before a use of `keyId` written elsewhere (a metered use, metered-use.ts):
   * the uses this process holds of the key from a lease are written first,
   * and reads marked before it no longer hold.
   */
  async settle(keyId: string): Promise<void> {
    if (this.leases?.hasPending(keyId)) await this.flushKey(keyId);
    this.changes.touch(keyId);
  }

  /**
   * Records one authenticated use and takes a rate-limit slot: one conditional UpdateItem when admitted at low rates;
   * for a hot key, mostly none (decided from the process's lease, written with its next write). See usage-lease.ts.
   */
  recordUse(use: UseToRecord): Promise<RecordUseResult> {
    return this.record(use);
  }

  /** `recordUse`; `earlyToken` marks a write sent before its read (see `recordUseAhead`). */
  private async record(use: UseToRecord, earlyToken?: string): Promise<RecordUseResult> {
    this.changes.touch(use.keyId);
    const counted = countedOf(use);
    const alone = () => this.writeUse(use, new UsageDelta().add(counted), undefined, earlyToken);
    if (process.env.HOT_PATH_BUNDLE === 'off' || !this.leases?.settings.enabled) return alone(); // no leases off the hot path
    const lease = this.leases.of(use.keyId);
    for (;;) {
      if (lease.writing()) {
        // One write of a key at a time in a process: the others wait for its block.
        await lease.afterWrite(true);
        continue;
      }
      const decision = lease.decide(counted, windowIndex(use.at), use.rateLimit);
      if (decision) {
        lease.onPending(() => void this.flushKey(use.keyId));
        return decidedLocally(use, decision);
      }
      // This request fails if its write does (its use is not recorded); the uses it carried stay pending.
      return lease.exclusive(
        (pending) => this.writeUse(use, pending ? new UsageDelta().add(counted).merge(pending) : new UsageDelta().add(counted), lease, earlyToken),
        () => void this.flushKey(use.keyId),
      );
    }
  }

  /**
   * `recordUse` for a use predicted before the key's read has answered (verification/early-write.ts, the only caller, on the
   * hot path: elsewhere the stack's bundle drops it), marked with a random token so that its `takeBack` can undo it exactly.
   * Undefined when this process's lease on the key would decide the use from memory, or holds uses not written yet: only a
   * use written alone can be taken back, so those wait for the read.
   */
  recordUseAhead(use: UseToRecord): EarlyUse | undefined {
    if (process.env.HOT_PATH_BUNDLE === 'off') return undefined;
    else {
      const lease = this.leases?.settings.enabled ? this.leases.of(use.keyId) : undefined;
      if (lease && (lease.busy() || lease.decidesLocally(use.at.getTime(), windowIndex(use.at), use.rateLimit))) return undefined;
      const token = newEarlyToken();
      // No await before `record` reaches its write: the lease cannot change in between.
      return earlyUse(this.record(use, token), (result) => {
        this.changes.touch(use.keyId);
        return takeBackUse(this.tables, use, token, result);
      });
    }
  }

  /** How late a use this process admitted from a lease may reach the usage item (ms; 0 without leases). */
  pendingBoundMs(): number {
    return this.leases?.settings.enabled ? this.leases.settings.flushAfterMs : 0;
  }

  /** A mark for a read of `keyId`'s usage item about to be sent (usage-changes.ts); undefined while uses of it are pending. */
  readMark(keyId: string): number | undefined {
    return this.changes.mark(keyId, this.holdsUses(keyId));
  }

  /** Whether a read marked `mark` still holds every use this process recorded of `keyId`. */
  unchangedSince(keyId: string, mark: number | undefined): boolean {
    return this.changes.unchangedSince(keyId, mark, this.holdsUses(keyId));
  }

  /** Whether this process holds uses of `keyId` not written yet (its own lease, or a metered one). */
  private readonly holdsUses = (keyId: string) => !!this.leases?.hasPending(keyId) || [...this.meteredSettlers].some((settler) => settler.holds(keyId));

  /** Writes every pending use of this process (for a clean shutdown, and for tests that read totals right after a burst). */
  async flushPending(): Promise<void> {
    await Promise.all((this.leases?.withPending() ?? []).map((keyId) => this.flushKey(keyId)));
  }

  /** Writes a key's pending uses without taking a slot (the timer of a key that went quiet). */
  private async flushKey(keyId: string): Promise<void> {
    const lease = this.leases?.of(keyId);
    if (process.env.HOT_PATH_BUNDLE === 'off' || !lease) return;
    while (lease.writing()) await lease.afterWrite(false);
    if (!lease.hasPending()) return;
    this.changes.touch(keyId);
    await lease
      .exclusive(
        async (pending) => {
          if (!pending) return;
          const copied = this.months.toRemove(keyId);
          const item = await recordWithoutSlot(this.tables, keyId, pending, copied);
          if (item) await this.months.afterWrite(item, copied, pending.lastAt);
        },
        () => void this.flushKey(keyId),
      )
      // Kept for the next request or the next timer (a throttled table, a network error).
      .catch(() => undefined);
  }

  /**
   * The recording write of `delta` (this use and any pending ones), taking a
   * block of slots (1 without a lease) when the window has room.
   */
  private async writeUse(use: UseToRecord, delta: UsageDelta, lease?: KeyLease, earlyToken?: string): Promise<RecordUseResult> {
    const { db, keyTableName: tableName } = this.tables;
    const index = windowIndex(use.at);
    const elapsed = elapsedFraction(use.at);
    const reset = windowResetAt(use.at);
    const knownPrevious = this.endedWindows.get(use.keyId, index - 1);
    // The most the current window may hold after this request; `rate_limit` bounds it whatever the previous window held.
    const maxCurrent = knownPrevious === undefined ? use.rateLimit : Math.floor(windowCapacity(knownPrevious, elapsed, use.rateLimit));

    const copied = this.months.toRemove(use.keyId);
    if (maxCurrent >= 1) {
      const { usage, validBefore } = admittingClauses(use, delta, copied, earlyToken, knownPrevious === undefined);
      const names: Record<string, string> = { ...usage.names, '#w': String(index) };
      const removals = [...usage.removes];
      const tidy = this.endedWindows.isTidy(use.keyId, index);
      if (!tidy) {
        for (let back = 2; back < 2 + INLINE_TIDY_WINDOWS; back++) {
          names[`#old${back}`] = String(index - back);
          removals.push(`windows.#old${back}`);
        }
      }
      const wanted = lease ? lease.nextBlock(use.at.getTime(), index, maxCurrent, knownPrevious !== undefined) : 1;
      let item: UsageItem | undefined;
      let block = wanted;
      for (const attempt of wanted > 1 ? [wanted, 1] : [1]) {
        block = attempt;
        try {
          const result = await db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: USAGE.key(use.keyId),
              UpdateExpression: updateExpressionOf({ sets: [...usage.sets, 'windows.#w = if_not_exists(windows.#w, :zero) + :block'], removes: removals }),
              ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(windows.#w) OR windows.#w <= :room)',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ...usage.values, ':block': block, ':room': maxCurrent - block },
              ReturnValues: 'ALL_NEW',
            }),
          );
          item = USAGE.read(result.Attributes);
          break;
        } catch (error) {
          // The window has no room for the block, or the usage item is gone: a smaller block, or the use is recorded alone below.
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }
      if (item) {
        await this.months.afterWrite(item, copied, use.at);
        const windows = item.windows ?? {};
        const previous = windows[String(index - 1)] ?? 0;
        const current = windows[String(index)] ?? 0;
        this.endedWindows.remember(use.keyId, index - 1, previous);
        const leftovers = Object.keys(windows).filter((window) => Number(window) < index - 1);
        if (leftovers.length > 0) await removeWindows(this.tables, use.keyId, leftovers);
        if (!tidy && leftovers.length <= MAX_WINDOWS_REMOVED_PER_WRITE) this.endedWindows.markTidy(use.keyId, index);

        const capacity = windowCapacity(previous, elapsed, use.rateLimit);
        if (current <= capacity) {
          lease?.leased(index, use.rateLimit, block, current, capacity, use.at.getTime());
          return {
            admitted: true,
            rateLimit: { limit: use.rateLimit, remaining: Math.max(0, Math.floor(capacity - current)) + block - 1, reset },
          };
        }
        // Let through by the upper bound, refused by the estimate: give the slots back (the uses stay recorded, not as VALID).
        const admittedAt = admittedAtAfter(use, await releaseSlots(this.tables, use.keyId, index, block, validBefore));
        lease?.full(index, use.rateLimit, admittedAt);
        return refusedUntil(use, admittedAt);
      }
    }

    const refusedItem = await recordWithoutSlot(this.tables, use.keyId, delta, copied, earlyToken);
    if (refusedItem === undefined) return { admitted: false, reason: 'NO_USAGE_ITEM' };
    await this.months.afterWrite(refusedItem, copied, use.at);
    const windows = refusedItem.windows ?? {};
    this.endedWindows.remember(use.keyId, index - 1, windows[String(index - 1)] ?? 0);
    const admittedAt = admittedAtAfter(use, windows);
    lease?.full(index, use.rateLimit, admittedAt);
    return refusedUntil(use, admittedAt);
  }

  /**
   * Usage figures of a key, read from its usage item (zeros when it has
   * none), after writing this process's pending uses of the key: exact for
   * this process, and at most `flushAfterMs` behind for the others.
   */
  async readUsage(keyId: string, at: Date): Promise<UsageSummary> {
    return summariseUsage(await this.usageItem(keyId), at);
  }

  /** `readUsage`: the raw usage item of a key (undefined when it has none), after this process's pending uses of it. */
  async usageItem(keyId: string): Promise<UsageItem | undefined> {
    if (this.leases?.hasPending(keyId)) await this.flushKey(keyId);
    await this.settleMetered([keyId]);
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: USAGE.key(keyId), ConsistentRead: true }));
    return USAGE.read(Item);
  }

  private readonly settleMetered = (keyIds: readonly string[]) =>
    Promise.all([...this.meteredSettlers].flatMap((settler) => keyIds.map((keyId) => settler.settle(keyId))));
  /**
   * `readUsageBatch`: `last_used_at` of up to 100 keys in one BatchGetItem
   * (a page of a key list), with the credits of those that have some, by
   * key id; a key without a usage item is absent.
   */
  async lastUses(keyIds: readonly string[]): Promise<Map<string, LastUse & Pick<UsageSummary, 'credits' | 'transition_entries'>>> {
    await Promise.all(keyIds.filter((keyId) => this.leases?.hasPending(keyId)).map((keyId) => this.flushKey(keyId)));
    await this.settleMetered(keyIds);
    const items = await batchGetAll(
      this.tables.db,
      this.tables.keyTableName,
      keyIds.map((id) => USAGE.key(id)),
      'key_id, last_used_at, last_valid_at, cr_left, cr_period, cr_g, cr_h, transitions',
    );
    return new Map(items.map((item) => [String(item.key_id), { ...lastUseOf(item), ...creditsOf(item), ...transitionEntriesOf(item) }]));
  }
}

/** Each public method of UsageStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const USAGE_STORE_OPERATIONS = {
  recordUse: 'recordUse',
  recordUseAhead: 'recordUse',
  settle: 'recordUse',
  pendingBoundMs: [],
  readMark: [],
  unchangedSince: [],
  flushPending: 'recordUse',
  // A read writes this process's pending uses of the key first.
  readUsage: ['readUsage', 'recordUse'],
  usageItem: ['readUsage', 'recordUse'],
  lastUses: ['readUsageBatch', 'recordUse'],
} as const satisfies OperationsOf<UsageStore>;
