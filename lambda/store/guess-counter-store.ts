/**
 * The verify endpoint's guess counters: failed verifications of unknown
 * values by one source (IPv4 address or IPv6 /64) in one minute
 * (`IPRATE#...`, removed by TTL). Read with the value lookup; written here.
 */
import { conditionHeld } from './condition-held';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE, type ItemKey } from '../contract/tables';
import { epochSeconds } from '../platform/clock';
import type { StoreTables } from './transactions';
import type { OperationsOf } from '../contract/store-operations';
import { GUESS_COUNTER_ENTITY } from './entities/guess-counter';

export class GuessCounterStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /**
   * `countGuess`: one failed verification of an unknown value from a source
   * in a minute, if the source is under `limit`; false when it is not.
   */
  async countGuess(counterKey: ItemKey, limit: number, expiresAt: Date): Promise<boolean> {
    return conditionHeld(
      this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: counterKey,
          UpdateExpression: 'SET entity = :entity, #ttl = :ttl ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':entity': GUESS_COUNTER_ENTITY, ':ttl': epochSeconds(expiresAt), ':one': 1, ':limit': limit },
        }),
      ),
    );
  }
}

/** Each public method of GuessCounterStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const GUESS_COUNTER_STORE_OPERATIONS = {
  countGuess: 'countGuess',
} as const satisfies OperationsOf<GuessCounterStore>;
