/**
 * The usage item's other writes, beside the recording write: uses recorded
 * without a rate-limit slot (refused, or flushed from a lease), slots given
 * back, and windows too old to matter dropped.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageItem } from '../domain/model';
import type { UsageDelta } from '../domain/usage-delta';
import type { StoreTables } from './transactions';
import { MAX_WINDOWS_REMOVED_PER_WRITE, usageClauses } from './usage-writes';
import { USAGE } from './entities/usage';

/** Records uses without a slot (refused, or flushed); the usage item after it, or undefined when the key has no usage item. */
export async function recordWithoutSlot(
  tables: Pick<StoreTables, 'db' | 'keyTableName'>,
  keyId: string,
  delta: UsageDelta,
  copied: readonly string[],
  earlyToken?: string,
): Promise<UsageItem | undefined> {
  const { db, keyTableName: tableName } = tables;
  const usage = usageClauses(delta, copied, earlyToken);
  try {
    const result = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: USAGE.key(keyId),
        UpdateExpression: `SET ${usage.sets.join(', ')}${usage.removes.length > 0 ? ` REMOVE ${usage.removes.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.keys(usage.names).length > 0 ? usage.names : undefined,
        ExpressionAttributeValues: usage.values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return USAGE.read(result.Attributes);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * Gives back `count` slots taken in window `index`; the rate windows after
 * it. `validBefore`: the use was not VALID after all, so `last_valid_at`
 * goes back to what the write replaced (`valid_before`, last-valid.ts), or
 * to the latest use it carried that a lease had admitted.
 */
export async function releaseSlots(
  tables: Pick<StoreTables, 'db' | 'keyTableName'>,
  keyId: string,
  index: number,
  count: number,
  validBefore?: { pending?: Date },
): Promise<Record<string, number>> {
  const { db, keyTableName: tableName } = tables;
  const pending = validBefore?.pending;
  const restore = validBefore ? `, last_valid_at = ${pending ? ':pending' : 'valid_before'}` : '';
  const result = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: USAGE.key(keyId),
      UpdateExpression: `SET windows.#w = windows.#w - :count${restore}`,
      ConditionExpression: 'windows.#w >= :count',
      ExpressionAttributeNames: { '#w': String(index) },
      ExpressionAttributeValues: { ':count': count, ...(pending ? { ':pending': pending.toISOString() } : {}) },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return USAGE.read(result.Attributes)?.windows ?? {};
}

/** Drops windows too old to matter (left over from a key idle for more than a day). */
export async function removeWindows(tables: Pick<StoreTables, 'db' | 'keyTableName'>, keyId: string, windows: string[]): Promise<void> {
  const { db, keyTableName: tableName } = tables;
  const names: Record<string, string> = {};
  const paths = windows.slice(0, MAX_WINDOWS_REMOVED_PER_WRITE).map((window, i) => {
    names[`#s${i}`] = window;
    return `windows.#s${i}`;
  });
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: USAGE.key(keyId),
      UpdateExpression: `REMOVE ${paths.join(', ')}`,
      ExpressionAttributeNames: names,
    }),
  );
}
