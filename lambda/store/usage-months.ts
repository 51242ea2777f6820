/**
 * Constant cost for life: the usage item keeps the last `USAGE_DAYS_KEPT`
 * days only. When a recording write returns a day older than that (at most
 * one new such day per key per day), the day is added to the key's month
 * item (`usageMonth`, one conditional UpdateItem: a day is copied at most
 * once), and the next recording write of this process removes it from the
 * usage item. Totals stay on the usage item; history stays readable
 * (`usageHistory`).
 */
import { conditionHeld } from './condition-held';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageItem, UsageMonthItem } from '../domain/model';
import { staleDaysOf } from '../domain/usage-figures';
import { queryAll } from './query-all';
import type { StoreTables } from './transactions';
import { MAX_COPIED_DAYS_REMOVED_PER_WRITE } from './usage-writes';
import type { OperationsOf } from '../contract/store-operations';
import { USAGE } from './entities/usage';
import { USAGE_MONTH, USAGE_MONTH_PREFIX } from './entities/usage-month';

export class UsageMonths {
  /** Days this process copied to their month item, by key id: the next recording write removes them from the usage item. */
  private readonly copiedDays = new Map<string, Set<string>>();

  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** The copied days a recording write of `keyId` removes from the usage item. */
  toRemove(keyId: string): string[] {
    // A bounded number per write keeps the expression small; a long backlog (an old item) drains over a few uses.
    return [...(this.copiedDays.get(keyId) ?? [])].slice(0, MAX_COPIED_DAYS_REMOVED_PER_WRITE);
  }

  /** After a recording write: forget the copied days it removed, then copy the days that turned old. */
  async afterWrite(item: UsageItem, removed: readonly string[], at: Date): Promise<void> {
    this.removed(item.key_id, removed);
    await this.copyStaleDays(item, at);
  }

  /** After a recording write that did not return the usage item: forget the copied days it removed. */
  removed(keyId: string, removed: readonly string[]): void {
    const pending = this.copiedDays.get(keyId);
    for (const day of removed) pending?.delete(day);
    if (pending?.size === 0) this.copiedDays.delete(keyId);
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
    return conditionHeld(
      this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: USAGE_MONTH.key(keyId, month),
          UpdateExpression: `SET entity = :entity, key_id = :key, #month = :month ADD #total :sum, ${adds.join(', ')}`,
          ConditionExpression: absent.join(' AND '),
          ExpressionAttributeNames: { ...names, '#month': 'month', '#total': 'total' },
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  /** `readUsageHistory`: a key's month items, oldest first. */
  async usageHistory(keyId: string): Promise<UsageMonthItem[]> {
    return queryAll(
      this.tables.db,
      {
        TableName: this.tables.keyTableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': USAGE.key(keyId).pk, ':prefix': USAGE_MONTH_PREFIX },
        ConsistentRead: true,
      },
      USAGE_MONTH.readAll,
    );
  }
}

/** Each public method of UsageMonths and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const USAGE_MONTHS_OPERATIONS = {
  toRemove: [],
  removed: [],
  // Part of the recording write: a day older than the usage item keeps is copied to its month item.
  afterWrite: 'recordUse',
  usageHistory: 'readUsageHistory',
} as const satisfies OperationsOf<UsageMonths>;
