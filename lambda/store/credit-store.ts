/**
 * Credits adjusted by hand (docs/limits.md) on a meter: a
 * key's usage item or an identity's own item. `add` is a grant a refill
 * never wipes (spent after the refill allowance, soonest-expiring first);
 * `set` sets what is left of the refill allowance (grants kept). Each is one
 * transaction with its audit record (and the idempotent answer), then one
 * strongly consistent read of the meter for the answer.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from '../contract/tables';
import type { OperationsOf } from '../contract/store-operations';
import { meterViewOf, type MeterView } from '../domain/meters';
import type { IdempotencyRecord } from './idempotency-record';
import { IdempotencyRace } from './idempotency-record';
import type { AuditRecord } from '../domain/audit-events';
import { Transactions, type StoreTables, type TransactItem } from './transactions';
import { balanceClauses, meterItemUpdate } from './meter-updates';

/** One adjustment: a grant of `add` credits (with its id and expiry), or the allowance `set`. */
export type CreditAdjustment = { add: number; grantId: string; expiresAt: string | null } | { set: number; period?: string };

export class CreditStore {
  private readonly transactions: Transactions;

  constructor(private readonly tables: StoreTables) {
    this.transactions = new Transactions(tables);
  }

  /**
   * `adjustCredits`: the adjustment on the meter at `meterKey`, only while it
   * has credits, with `audit` (and `idempotency`); the meter after it, or
   * 'no_credits' when it has none (unlimited, or its owner went).
   */
  async adjust(meterKey: ItemKey, adjustment: CreditAdjustment, audit: AuditRecord, idempotency?: IdempotencyRecord): Promise<MeterView | 'no_credits'> {
    const update: TransactItem =
      'add' in adjustment
        ? {
            Update: {
              TableName: this.tables.keyTableName,
              Key: meterKey,
              UpdateExpression: 'SET #g.#id = :grant',
              ConditionExpression: 'attribute_exists(#left) AND attribute_exists(#g)',
              ExpressionAttributeNames: { '#g': 'cr_g', '#id': adjustment.grantId, '#left': 'cr_left' },
              ExpressionAttributeValues: { ':grant': { n: adjustment.add, exp: adjustment.expiresAt } },
            },
          }
        : // Set as an owner's update sets a balance (meter-updates.ts), only while the meter has credits.
          meterItemUpdate(this.tables.keyTableName, meterKey, balanceClauses(adjustment.set, adjustment.period), 'attribute_exists(#mul)');
    const items = [update, this.transactions.putAudit(audit), ...(idempotency ? [this.transactions.putIdempotency(idempotency)] : [])];
    const outcome = await this.transactions.transact(items);
    if (!outcome.committed) {
      if (idempotency && outcome.reasons[items.length - 1] === 'ConditionalCheckFailed') throw new IdempotencyRace();
      if (outcome.reasons[0] === 'ConditionalCheckFailed') return 'no_credits';
      throw new Error(`adjusting credits was cancelled: ${outcome.reasons.join(', ')}`);
    }
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: meterKey, ConsistentRead: true }));
    return Item ? meterViewOf(Item) : 'no_credits';
  }
}

/** Each public method of CreditStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const CREDIT_STORE_OPERATIONS = {
  adjust: 'adjustCredits',
} as const satisfies OperationsOf<CreditStore>;
