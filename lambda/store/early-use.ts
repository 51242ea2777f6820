/**
 * The store's half of a use written before the read that decides it
 * (verification/early-write.ts holds the other half): the handle
 * `UsageStore.recordUseAhead` returns, and the one write that takes such a
 * use back. The take-back is reachable only through the handle, which holds
 * the write's random token: it recognises its own write by that token
 * (`early_token` on the usage item), not by a timestamp two processes could
 * share.
 */
import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { windowIndex } from '../domain/rate-window';
import type { RecordUseResult, UseToRecord } from '../domain/recording';
import { dayOf, transitionCounterName } from '../domain/usage-figures';
import type { StoreTables } from './transactions';
import { USAGE } from './entities/usage';

/** A use written before its read: its answer, and how to take it back (at most once; later calls wait for the first). */
export interface EarlyUse {
  readonly recorded: Promise<RecordUseResult>;
  takeBack(): Promise<void>;
}

/** A random token for one early write (72 bits): what its take-back recognises it by. */
export function newEarlyToken(): string {
  return randomBytes(9).toString('base64url');
}

/** The handle of a use written early: its answer, and a take-back run at most once, after the write answered (a failed write recorded nothing). */
export function earlyUse(recorded: Promise<RecordUseResult>, undo: (result: RecordUseResult) => Promise<void>): EarlyUse {
  // Awaited on every path of the caller; this only keeps a failure from counting as unhandled meanwhile.
  recorded.catch(() => undefined);
  let taken: Promise<void> | undefined;
  return { recorded, takeBack: () => (taken ??= recorded.then(undo, () => undefined)) };
}

/**
 * Takes back a use written early and then contradicted by the read: its
 * counts, its rate-limit slot when it took one, and `last_used_at` and
 * `last_valid_at` as they were, unless another use has been recorded since
 * (that write removed the token). One UpdateItem; two when another use
 * came in between.
 */
export async function takeBackUse(tables: Pick<StoreTables, 'db' | 'keyTableName'>, use: UseToRecord, token: string, recorded: RecordUseResult): Promise<void> {
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
  // `last_used_at` and `last_valid_at` as they were (the epoch for a key with no VALID use before), or neither once another use came in.
  const undo = (restoreLastUse: boolean) =>
    tables.db.send(
      new UpdateCommand({
        TableName: tables.keyTableName,
        Key: USAGE.key(use.keyId),
        UpdateExpression: restoreLastUse
          ? `SET ${[...sets, 'last_used_at = prior_used_at', 'last_valid_at = prior_valid_at'].join(', ')} REMOVE prior_used_at, prior_valid_at, early_token`
          : `SET ${sets.join(', ')}`,
        ConditionExpression: (restoreLastUse ? [...conditions, 'early_token = :token', 'attribute_exists(prior_used_at)'] : conditions).join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: restoreLastUse ? { ':one': 1, ':token': token } : { ':one': 1 },
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
