/**
 * The usage store: the writes that record a use and take a rate-limit slot
 * (the algorithm is in rate-window.ts), the read of a key's usage figures,
 * and the verify endpoint's guess counter. Declared in
 * lambda/contract/store-operations.ts as `recordUse`, `readUsage` and
 * `countGuess`.
 *
 * The same write records the use (last_used_at, total_requests, per-day and
 * per-transition counts), so an admitted request costs at most one write. A
 * refused request is still an authenticated use: it is recorded by a second
 * write without taking a slot. A hot key's writes take a block of slots
 * and carry the uses the process admitted or refused from it in memory
 * (usage-lease.ts): mostly no write per request.
 *
 * A use may be written before the read that decides it has answered
 * (`recordUseAhead`, for a value the process has seen valid: the verify
 * endpoint and the authorizer send both at once). Such a write keeps the
 * `last_used_at` it replaces in `prior_used_at`, and `cancelUse` takes it
 * back exactly when the read contradicts it. Both are part of the
 * `recordUse` operation (the same UpdateItem on the usage item).
 *
 * Constant cost for life: the usage item keeps the last `USAGE_DAYS_KEPT`
 * days only. When a recording write returns a day older than that (at most
 * one new such day per key per day), the day is added to the key's month
 * item (`usageMonth`, one conditional UpdateItem: a day is copied at most
 * once), and the next recording write of this process removes it from the
 * usage item. Totals stay on the usage item; history stays readable
 * (`usageHistory`).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../platform/batch-get';
import { queryAll } from '../platform/query-all';
import { IP_RATE_ENTITY, SK_USAGE_MONTH_PREFIX, TTL_ATTRIBUTE, keyTableKeys, type ItemKey } from '../contract/tables';
import type { UsageItem, UsageMonthItem } from '../domain/model';
import type { StoreTables } from './transactions';
import type { EndedWindows } from '../domain/ended-windows';
import { epochSeconds } from '../platform/clock';
import { admittedAgainAt, elapsedFraction, windowCapacity, windowIndex, windowResetAt, type RateLimitState } from '../domain/rate-window';
import { DEFAULT_LEASE_SETTINGS, KeyLeases, UsageDelta, type KeyLease, type LeaseSettings, type LocalDecision, type UseCounted } from '../domain/usage-lease';
import { dayOf, staleDaysOf, summariseUsage, transitionCounterName, type UsageSummary } from '../domain/usage-figures';

/**
 * Windows older than the previous one are removed by the first recording
 * write of a process in a new hour, up to this many hours back; an older
 * leftover (a key idle for more than a day) is removed by one extra write on
 * its next use. Once the item is seen tidy in an hour, the process's other
 * writes of that hour name no old window (see ended-windows.ts).
 */
const INLINE_TIDY_WINDOWS = 24;

/** Leftover windows one tidy write removes at most. */
const MAX_WINDOWS_REMOVED_PER_WRITE = 50;

/** Copied days one recording write removes from the usage item at most. */
const MAX_COPIED_DAYS_REMOVED_PER_WRITE = 40;


export interface UseToRecord {
  keyId: string;
  at: Date;
  rateLimit: number;
  /** When the key is in a transition: which value was presented, and the transition's generation. */
  transition?: { generation: number; role: 'old' | 'new' };
  /** Keep the `last_used_at` it replaces in `prior_used_at`, so that `cancelUse` can put it back. */
  undoable?: boolean;
}

export type RecordUseResult =
  | { admitted: true; rateLimit: RateLimitState }
  | { admitted: false; reason: 'RATE_LIMITED'; rateLimit: RateLimitState }
  | { admitted: false; reason: 'NO_USAGE_ITEM' };


interface UsageUpdate {
  names: Record<string, string>;
  values: Record<string, unknown>;
  sets: string[];
  removes: string[];
}

/** What one use adds to the usage item. */
function countedOf(use: UseToRecord): UseCounted {
  return {
    at: use.at,
    day: dayOf(use.at),
    transitionCounter: use.transition ? transitionCounterName(use.transition.generation, use.transition.role) : undefined,
  };
}

/**
 * The SET clauses that record `delta` (no rate-limit slot), and the REMOVE
 * paths of days already copied to their month. `undoable`: the
 * `last_used_at` replaced is kept in `prior_used_at` (the operands of an
 * update expression are read from the item as it was before the update).
 */
function usageClauses(delta: UsageDelta, copiedDays: readonly string[] = [], undoable = false): UsageUpdate {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': delta.lastAt.toISOString(), ':zero': 0, ':uses': delta.count };
  const sets = ['last_used_at = :now', 'total_requests = if_not_exists(total_requests, :zero) + :uses'];
  if (undoable) {
    sets.push('prior_used_at = if_not_exists(last_used_at, :never)');
    values[':never'] = null;
  }
  [...delta.days].forEach(([day, count], i) => {
    names[`#day${i}`] = day;
    values[`:day${i}`] = count;
    sets.push(`daily.#day${i} = if_not_exists(daily.#day${i}, :zero) + :day${i}`);
  });
  // A flat entry (`g2_old`) in the map that exists since creation: no
  // per-transition map has to be made first, so the regenerate transaction
  // never writes this hot item (a standard write racing a transaction on
  // the same item makes one of them fail in DynamoDB).
  [...delta.transitions].forEach(([counter, count], i) => {
    names[`#gr${i}`] = counter;
    values[`:gr${i}`] = count;
    sets.push(`transitions.#gr${i} = if_not_exists(transitions.#gr${i}, :zero) + :gr${i}`);
  });
  const removes = copiedDays.map((day, i) => {
    names[`#cd${i}`] = day;
    return `daily.#cd${i}`;
  });
  return { names, values, sets, removes };
}

/** A refusal of `use` until `admittedAt` (epoch ms). */
function refusedUntil(use: UseToRecord, admittedAt: number): RecordUseResult {
  return {
    admitted: false,
    reason: 'RATE_LIMITED',
    rateLimit: {
      limit: use.rateLimit,
      remaining: 0,
      reset: windowResetAt(use.at),
      retryAfterSeconds: Math.max(1, Math.ceil((admittedAt - use.at.getTime()) / 1000)),
    },
  };
}

/** When a slot frees for `use`, from the rate windows a write returned. */
function admittedAtAfter(use: UseToRecord, windows: Record<string, number>): number {
  const index = windowIndex(use.at);
  return admittedAgainAt(windows[String(index - 1)] ?? 0, windows[String(index)] ?? 0, use.at, use.rateLimit);
}

/** The answer to a use admitted or refused from the process's lease, without a write. */
function decidedLocally(use: UseToRecord, decision: LocalDecision): RecordUseResult {
  if (!decision.admitted) return refusedUntil(use, decision.refusedUntil);
  return { admitted: true, rateLimit: { limit: use.rateLimit, remaining: decision.remaining, reset: windowResetAt(use.at) } };
}


export class UsageStore {
  /** Days this process copied to their month item, by key id: the next recording write removes them from the usage item. */
  private readonly copiedDays = new Map<string, Set<string>>();
  /** This process's leases on hot keys (usage-lease.ts). */
  private readonly leases: KeyLeases;

  constructor(
    private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>,
    /** This process's memory of ended windows' counts. */
    readonly endedWindows: EndedWindows,
    leaseSettings: LeaseSettings = DEFAULT_LEASE_SETTINGS,
  ) {
    this.leases = new KeyLeases(leaseSettings);
  }

  /**
   * Records one authenticated use and takes a rate-limit slot: one
   * conditional UpdateItem when admitted at low rates; for a hot key, mostly
   * none (admitted or refused from the process's lease, written with the
   * next write of the key). See the module comments of rate-window.ts and
   * usage-lease.ts.
   */
  async recordUse(use: UseToRecord): Promise<RecordUseResult> {
    const counted = countedOf(use);
    if (!this.leases.settings.enabled) return this.writeUse(use, new UsageDelta().add(counted));
    const lease = this.leases.of(use.keyId);
    for (;;) {
      if (lease.inflight) {
        // One write of a key at a time in a process: the others wait for its block.
        lease.waiting += 1;
        await lease.inflight.catch(() => undefined);
        lease.waiting -= 1;
        continue;
      }
      const decision = lease.decide(counted, windowIndex(use.at), use.rateLimit);
      if (decision) {
        lease.onPending(() => void this.flushKey(use.keyId));
        return decidedLocally(use, decision);
      }
      const since = lease.pendingStartedAt();
      const pending = lease.takePending();
      const delta = new UsageDelta().add(counted);
      if (pending) delta.merge(pending);
      let result: RecordUseResult | undefined;
      const write = this.writeUse(use, delta, lease).then((written) => {
        result = written;
      });
      lease.inflight = write.finally(() => {
        lease.inflight = undefined;
      });
      try {
        await lease.inflight;
      } catch (error) {
        // This request fails (its use is not recorded); the uses it carried stay pending.
        lease.restore(pending, since);
        lease.onPending(() => void this.flushKey(use.keyId));
        throw error;
      }
      return result as RecordUseResult;
    }
  }

  /**
   * `recordUse` for a use predicted before the key's read has answered (the
   * verify endpoint sends the two at once, guess-limiter.ts), written so that
   * `cancelUse` can undo it exactly. Undefined when this process's lease on
   * the key would decide the use from memory, or holds uses not written yet:
   * only a use written alone can be taken back, so those wait for the read.
   */
  recordUseAhead(use: UseToRecord): Promise<RecordUseResult> | undefined {
    if (this.leases.settings.enabled) {
      const lease = this.leases.of(use.keyId);
      if (lease.busy() || lease.decidesLocally(use.at.getTime(), windowIndex(use.at), use.rateLimit)) return undefined;
    }
    // No await before `recordUse` reaches its write: the lease cannot change in between.
    return this.recordUse({ ...use, undoable: true });
  }

  /**
   * Takes back a use `recordUseAhead` wrote and the read then contradicted
   * (the key disabled, deleted, rolled or re-limited since this process last
   * read it; or the source over its guess limit): its counts, its rate-limit
   * slot when it took one, and `last_used_at` as it was, unless another use
   * has been recorded since. One UpdateItem; two when another use came in
   * between. Only ever after a contradicted prediction, never on the
   * common path.
   */
  async cancelUse(use: UseToRecord, recorded: RecordUseResult): Promise<void> {
    if (!recorded.admitted && recorded.reason === 'NO_USAGE_ITEM') return;
    const names: Record<string, string> = { '#day': dayOf(use.at) };
    const sets = ['total_requests = total_requests - :one', 'daily.#day = daily.#day - :one'];
    const conditions = ['attribute_exists(pk)'];
    if (use.transition) {
      names['#gr'] = transitionCounterName(use.transition.generation, use.transition.role);
      sets.push('transitions.#gr = transitions.#gr - :one');
    }
    if (recorded.admitted) {
      names['#w'] = String(windowIndex(use.at));
      sets.push('windows.#w = windows.#w - :one');
      conditions.push('windows.#w >= :one');
    }
    const undo = (restoreLastUse: boolean) =>
      this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: keyTableKeys.usage(use.keyId),
          UpdateExpression: restoreLastUse
            ? `SET ${[...sets, 'last_used_at = prior_used_at'].join(', ')} REMOVE prior_used_at`
            : `SET ${sets.join(', ')}`,
          ConditionExpression: (restoreLastUse ? [...conditions, 'last_used_at = :ours', 'attribute_exists(prior_used_at)'] : conditions).join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: restoreLastUse ? { ':one': 1, ':ours': use.at.toISOString() } : { ':one': 1 },
        }),
      );
    for (const restoreLastUse of [true, false]) {
      try {
        await undo(restoreLastUse);
        return;
      } catch (error) {
        // A later use set `last_used_at` (it stays), or the item is gone (nothing to take back).
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }

  /** Whether this process holds uses of `keyId` not written yet. */
  hasPendingUses(keyId: string): boolean {
    return this.leases.hasPending(keyId);
  }

  /**
   * Writes every pending use of this process (for a clean shutdown, and for
   * tests that read totals right after a burst).
   */
  async flushPending(): Promise<void> {
    await Promise.all(this.leases.withPending().map((keyId) => this.flushKey(keyId)));
  }

  /** Writes a key's pending uses without taking a slot (the timer of a key that went quiet). */
  private async flushKey(keyId: string): Promise<void> {
    const lease = this.leases.of(keyId);
    while (lease.inflight) await lease.inflight.catch(() => undefined);
    const since = lease.pendingStartedAt();
    const pending = lease.takePending();
    if (!pending) return;
    const write = (async () => {
      const copied = this.copiedToRemove(keyId);
      const item = await this.recordRefusedUse(keyId, pending, copied);
      if (item) await this.tidyDays(item, copied, pending.lastAt);
    })();
    lease.inflight = write.finally(() => {
      lease.inflight = undefined;
    });
    try {
      await lease.inflight;
    } catch {
      // Kept for the next request or the next timer (a throttled table, a network error).
      lease.restore(pending, since);
      lease.onPending(() => void this.flushKey(keyId));
    }
  }

  private copiedToRemove(keyId: string): string[] {
    // A bounded number per write keeps the expression small; a long backlog (an old item) drains over a few uses.
    return [...(this.copiedDays.get(keyId) ?? [])].slice(0, MAX_COPIED_DAYS_REMOVED_PER_WRITE);
  }

  /**
   * The recording write of `delta` (this use and any pending ones), taking a
   * block of slots (1 without a lease) when the window has room.
   */
  private async writeUse(use: UseToRecord, delta: UsageDelta, lease?: KeyLease): Promise<RecordUseResult> {
    const { db, keyTableName: tableName } = this.tables;
    const index = windowIndex(use.at);
    const elapsed = elapsedFraction(use.at);
    const reset = windowResetAt(use.at);
    const knownPrevious = this.endedWindows.get(use.keyId, index - 1);
    // The most the current window may hold after this request; `rate_limit` bounds it whatever the previous window held.
    const maxCurrent =
      knownPrevious === undefined ? use.rateLimit : Math.floor(windowCapacity(knownPrevious, elapsed, use.rateLimit));

    const copied = this.copiedToRemove(use.keyId);
    if (maxCurrent >= 1) {
      const usage = usageClauses(delta, copied, use.undoable);
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
              Key: keyTableKeys.usage(use.keyId),
              UpdateExpression: `SET ${[...usage.sets, 'windows.#w = if_not_exists(windows.#w, :zero) + :block'].join(', ')}${removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''}`,
              ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(windows.#w) OR windows.#w <= :room)',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ...usage.values, ':block': block, ':room': maxCurrent - block },
              ReturnValues: 'ALL_NEW',
            }),
          );
          item = result.Attributes as UsageItem;
          break;
        } catch (error) {
          // The window has no room for the block, or the usage item is gone: a smaller block, or the use is recorded alone below.
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }
      if (item) {
        await this.tidyDays(item, copied, use.at);
        const windows = item.windows ?? {};
        const previous = windows[String(index - 1)] ?? 0;
        const current = windows[String(index)] ?? 0;
        this.endedWindows.remember(use.keyId, index - 1, previous);
        const leftovers = Object.keys(windows).filter((window) => Number(window) < index - 1);
        if (leftovers.length > 0) await this.removeWindows(use.keyId, leftovers);
        if (!tidy && leftovers.length <= MAX_WINDOWS_REMOVED_PER_WRITE) this.endedWindows.markTidy(use.keyId, index);

        const capacity = windowCapacity(previous, elapsed, use.rateLimit);
        if (current <= capacity) {
          lease?.leased(index, use.rateLimit, block, current, capacity, use.at.getTime());
          return {
            admitted: true,
            rateLimit: { limit: use.rateLimit, remaining: Math.max(0, Math.floor(capacity - current)) + block - 1, reset },
          };
        }
        // Let through by the upper bound, refused by the estimate: give the slots back (the uses stay recorded).
        const admittedAt = admittedAtAfter(use, await this.releaseSlots(use.keyId, index, block));
        lease?.full(index, use.rateLimit, admittedAt);
        return refusedUntil(use, admittedAt);
      }
    }

    const refusedItem = await this.recordRefusedUse(use.keyId, delta, copied, use.undoable);
    if (refusedItem === undefined) return { admitted: false, reason: 'NO_USAGE_ITEM' };
    await this.tidyDays(refusedItem, copied, use.at);
    const windows = refusedItem.windows ?? {};
    this.endedWindows.remember(use.keyId, index - 1, windows[String(index - 1)] ?? 0);
    const admittedAt = admittedAtAfter(use, windows);
    lease?.full(index, use.rateLimit, admittedAt);
    return refusedUntil(use, admittedAt);
  }

  /** Records uses without a slot (refused, or flushed); the usage item after it, or undefined when the key has no usage item. */
  private async recordRefusedUse(keyId: string, delta: UsageDelta, copied: readonly string[], undoable = false): Promise<UsageItem | undefined> {
    const { db, keyTableName: tableName } = this.tables;
    const usage = usageClauses(delta, copied, undoable);
    try {
      const result = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyTableKeys.usage(keyId),
          UpdateExpression: `SET ${usage.sets.join(', ')}${usage.removes.length > 0 ? ` REMOVE ${usage.removes.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.keys(usage.names).length > 0 ? usage.names : undefined,
          ExpressionAttributeValues: usage.values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return result.Attributes as UsageItem;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /** Gives back `count` slots taken in window `index`; the rate windows after it. */
  private async releaseSlots(keyId: string, index: number, count: number): Promise<Record<string, number>> {
    const { db, keyTableName: tableName } = this.tables;
    const result = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyTableKeys.usage(keyId),
        UpdateExpression: 'SET windows.#w = windows.#w - :count',
        ConditionExpression: 'windows.#w >= :count',
        ExpressionAttributeNames: { '#w': String(index) },
        ExpressionAttributeValues: { ':count': count },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (result.Attributes as UsageItem).windows ?? {};
  }

  /** Drops windows too old to matter (left over from a key idle for more than a day). */
  private async removeWindows(keyId: string, windows: string[]): Promise<void> {
    const { db, keyTableName: tableName } = this.tables;
    const names: Record<string, string> = {};
    const paths = windows.slice(0, MAX_WINDOWS_REMOVED_PER_WRITE).map((window, i) => {
      names[`#s${i}`] = window;
      return `windows.#s${i}`;
    });
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keyTableKeys.usage(keyId),
        UpdateExpression: `REMOVE ${paths.join(', ')}`,
        ExpressionAttributeNames: names,
      }),
    );
  }

  /** After a recording write: forget the copied days it removed, then copy the days that turned old. */
  private async tidyDays(item: UsageItem, removed: readonly string[], at: Date): Promise<void> {
    const pending = this.copiedDays.get(item.key_id);
    for (const day of removed) pending?.delete(day);
    if (pending?.size === 0) this.copiedDays.delete(item.key_id);
    await this.copyStaleDays(item, at);
  }

  /**
   * Copies the usage item's days older than it keeps into their month items
   * (one conditional UpdateItem per month: a day already there is never
   * added twice), then remembers them for removal by the next recording
   * write. A day another process copied first is only remembered.
   */
  private async copyStaleDays(item: UsageItem, at: Date): Promise<void> {
    const stale = staleDaysOf(item.daily ?? {}, at).filter(([day]) => !this.copiedDays.get(item.key_id)?.has(day));
    if (stale.length === 0) return;
    const byMonth = new Map<string, [string, number][]>();
    for (const entry of stale) byMonth.set(entry[0].slice(0, 7), [...(byMonth.get(entry[0].slice(0, 7)) ?? []), entry]);
    for (const [month, days] of byMonth) {
      if (!(await this.addToMonth(item.key_id, month, days))) {
        // Some of these days are there already (another process, or a write before a crash): one by one.
        for (const day of days) await this.addToMonth(item.key_id, month, [day]);
      }
    }
    const pending = this.copiedDays.get(item.key_id) ?? new Set<string>();
    for (const [day] of stale) pending.add(day);
    this.copiedDays.set(item.key_id, pending);
  }

  /** Adds days to a month item unless one of them is there already; false when one was. */
  private async addToMonth(keyId: string, month: string, days: readonly [string, number][]): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':entity': 'usage-month', ':key': keyId, ':month': month, ':sum': days.reduce((sum, [, n]) => sum + n, 0) };
    const adds: string[] = [];
    const absent: string[] = [];
    days.forEach(([day, count], i) => {
      names[`#d${i}`] = `d${day.slice(8, 10)}`;
      values[`:n${i}`] = count;
      adds.push(`#d${i} :n${i}`);
      absent.push(`attribute_not_exists(#d${i})`);
    });
    try {
      await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: keyTableKeys.usageMonth(keyId, month),
          UpdateExpression: `SET entity = :entity, key_id = :key, #month = :month ADD #total :sum, ${adds.join(', ')}`,
          ConditionExpression: absent.join(' AND '),
          ExpressionAttributeNames: { ...names, '#month': 'month', '#total': 'total' },
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** `readUsageHistory`: a key's month items, oldest first. */
  async usageHistory(keyId: string): Promise<UsageMonthItem[]> {
    return queryAll<UsageMonthItem>(this.tables.db, {
      TableName: this.tables.keyTableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keyTableKeys.usage(keyId).pk, ':prefix': SK_USAGE_MONTH_PREFIX },
      ConsistentRead: true,
    });
  }

  /**
   * Usage figures of a key, read from its usage item (zeros when it has
   * none), after writing this process's pending uses of the key: exact for
   * this process, and at most `flushAfterMs` behind for the others.
   */
  async readUsage(keyId: string, at: Date): Promise<UsageSummary> {
    return summariseUsage(await this.usageItem(keyId), at);
  }

  /**
   * `countGuess`: one failed verification of an unknown value from a source
   * in a minute, if the source is under `limit`; false when it is not.
   */
  async countGuess(counterKey: ItemKey, limit: number, expiresAt: Date): Promise<boolean> {
    try {
      await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: counterKey,
          UpdateExpression: 'SET entity = :entity, #ttl = :ttl ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':entity': IP_RATE_ENTITY, ':ttl': epochSeconds(expiresAt), ':one': 1, ':limit': limit },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** `readUsage`: the raw usage item of a key (undefined when it has none), after this process's pending uses of it. */
  async usageItem(keyId: string): Promise<UsageItem | undefined> {
    if (this.leases.hasPending(keyId)) await this.flushKey(keyId);
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: keyTableKeys.usage(keyId), ConsistentRead: true }),
    );
    return Item as UsageItem | undefined;
  }

  /**
   * `readUsageBatch`: `last_used_at` of up to 100 keys in one BatchGetItem
   * (a page of a key list), by key id; a key without a usage item is absent.
   */
  async lastUses(keyIds: readonly string[]): Promise<Map<string, string | null>> {
    await Promise.all(keyIds.filter((keyId) => this.leases.hasPending(keyId)).map((keyId) => this.flushKey(keyId)));
    const items = await batchGetAll(
      this.tables.db,
      this.tables.keyTableName,
      keyIds.map((id) => keyTableKeys.usage(id)),
      'key_id, last_used_at',
    );
    return new Map(items.map((item) => [String(item.key_id), (item.last_used_at as string | null) ?? null]));
  }
}
