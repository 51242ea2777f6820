/**
 * Flush claims: one item per platform stage (`FLUSH#<restApiId>:<stage>`)
 * holding when the next flush of its authorizer cache may start. A flush
 * starts only after a conditional write claims it, so however many
 * functions run at once, a stage is flushed at most once per interval.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OperationsOf } from '../contract/store-operations';
import type { StoreTables } from './transactions';
import { FLUSH_CLAIM } from './entities/flush-claim';

export type FlushClaim = { claimed: true } | { claimed: false; nextAt: number };

export class FlushClaimStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** `claimCacheFlush`: the flush of `stage` at `now` (epoch ms), if none was claimed within `intervalMs` before; else when the next may be. */
  async claimFlush(stage: string, now: number, intervalMs: number): Promise<FlushClaim> {
    try {
      await this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: FLUSH_CLAIM.key(stage),
          UpdateExpression: 'SET next_at = :next',
          ConditionExpression: 'attribute_not_exists(next_at) OR next_at <= :now',
          ExpressionAttributeValues: { ':next': now + intervalMs, ':now': now },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true };
    } catch (error) {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      // The item as it was, in DynamoDB's own form (errors are not unmarshalled by the document client).
      const held = (error as { Item?: { next_at?: number | { N?: string } } }).Item?.next_at;
      const nextAt = typeof held === 'number' ? held : Number(held?.N);
      return { claimed: false, nextAt: Number.isFinite(nextAt) ? nextAt : now + intervalMs };
    }
  }
}

/** Each public method of FlushClaimStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const FLUSH_CLAIM_STORE_OPERATIONS = {
  claimFlush: 'claimCacheFlush',
} as const satisfies OperationsOf<FlushClaimStore>;
