/**
 * `last_valid_at` on the usage item: the last use admitted as VALID (the key
 * list's unused filter, docs/operations.md). The write that admits a use
 * sets it, a lease's write sets it for the uses its block admitted; a use
 * of a key refused for the request (management authentication) never does.
 *
 * A write that takes its slot under the upper bound of the rate window may
 * still be refused by the window's estimate once the write has answered
 * (usage-store.ts): it keeps the value it replaced in `valid_before`, and
 * `restoreLastValid` puts it back unless a later VALID use set another.
 * Early writes keep theirs in `prior_valid_at` (early-use.ts).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UseToRecord } from '../domain/recording';
import { latest, type UsageDelta } from '../domain/usage-delta';
import type { StoreTables } from './transactions';
import { USAGE } from './entities/usage';
import { NO_PRIOR_VALID, usageClauses, type UsageUpdate } from './usage-writes';

/**
 * The clauses of a write that takes a slot for `use` (usageClauses), with
 * the latest VALID use it records: the uses `delta` holds admitted, and
 * `use` unless its key was refused. `estimated`: the estimate may still
 * refuse the use once the write answers, so the write keeps the
 * `last_valid_at` it replaces (`restoreLastValid`).
 */
export function admittingClauses(
  use: UseToRecord,
  delta: UsageDelta,
  copied: readonly string[],
  earlyToken: string | undefined,
  estimated: boolean,
): { usage: UsageUpdate; validAt: Date | undefined } {
  const validAt = use.refused ? delta.lastValidAt : latest(delta.lastValidAt, use.at);
  const usage = usageClauses(delta, copied, earlyToken, validAt);
  if (estimated && validAt) {
    usage.sets.push('valid_before = if_not_exists(last_valid_at, :noValid)');
    usage.values[':noValid'] = NO_PRIOR_VALID;
  }
  return { usage, validAt };
}

/**
 * After a refusal by the estimate: `last_valid_at` back to what the write
 * replaced (or to `pending`, the latest use the write carried that its
 * lease had admitted), unless it is no longer `set` (a later VALID use).
 */
export async function restoreLastValid(tables: Pick<StoreTables, 'db' | 'keyTableName'>, keyId: string, set: Date, pending: Date | undefined): Promise<void> {
  const key = USAGE.key(keyId);
  const attempts = pending
    ? [{ UpdateExpression: 'SET last_valid_at = :pending', ConditionExpression: 'last_valid_at = :set', values: { ':pending': pending.toISOString() } }]
    : [
        { UpdateExpression: 'SET last_valid_at = valid_before', ConditionExpression: 'last_valid_at = :set AND valid_before <> :noValid', values: {} },
        { UpdateExpression: 'REMOVE last_valid_at', ConditionExpression: 'last_valid_at = :set AND valid_before = :noValid', values: {} },
      ];
  for (const { UpdateExpression, ConditionExpression, values } of attempts) {
    try {
      await tables.db.send(
        new UpdateCommand({
          TableName: tables.keyTableName,
          Key: key,
          UpdateExpression,
          ConditionExpression,
          ExpressionAttributeValues: { ':set': set.toISOString(), ...(pending ? {} : { ':noValid': NO_PRIOR_VALID }), ...values },
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
