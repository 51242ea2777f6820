/**
 * The admission writes of metered-use.ts: one meter's conditional
 * UpdateItem (ALL_NEW when it holds, ALL_OLD when a condition fails), or
 * both meters' transaction (a consistent read of both after it, since a
 * transaction returns no items, unless its writes were exact). Each meter seen is handed to `remember`.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { ItemKey } from '../contract/tables';
import type { MeterClauses } from './meter-clauses';
import { updateExpressionOf } from './update-expressions';
import type { MeterPart } from './meter-judgement';
import type { StoreTables } from './transactions';

/** Keeps a meter as a write or a failed condition showed it. */
export type Remember = (key: ItemKey, item: Record<string, unknown>) => void;

/** A write's outcome: the key's usage item after it (undefined after exact writes, whose meters are known: admission-writes.ts); a conflict with another transaction; or the meters that failed a condition, seen as they were (`missing`: no such item). */
export type WriteOutcome = { written: Record<string, unknown> | undefined } | 'conflict' | { missing: ('key' | 'identity')[] };

/** An item a failed condition returned: marshalled by the service (the document client leaves errors as they are). */
function returnedItem(item: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!item) return undefined;
  const first = Object.values(item)[0] as Record<string, unknown> | undefined;
  const marshalled =
    first !== null && typeof first === 'object' && Object.keys(first).length === 1 && /^(S|N|M|L|BOOL|NULL|SS|NS|B|BS)$/.test(Object.keys(first)[0] as string);
  return marshalled ? unmarshall(item as Parameters<typeof unmarshall>[0]) : (item as Record<string, NativeAttributeValue>);
}

function expression(c: MeterClauses) {
  return {
    UpdateExpression: updateExpressionOf(c),
    ConditionExpression: c.conditions.join(' AND '),
    ExpressionAttributeNames: c.names,
    ExpressionAttributeValues: c.values,
  };
}

export async function writeOne(tables: StoreTables, remember: Remember, part: MeterPart, c: MeterClauses): Promise<WriteOutcome> {
  try {
    const result = await tables.db.send(
      new UpdateCommand({
        TableName: tables.keyTableName,
        Key: part.key,
        ...expression(c),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const written = result.Attributes ?? {};
    remember(part.key, written);
    return { written };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const item = returnedItem(error.Item as Record<string, unknown> | undefined);
    if (!item) return { missing: [part.owner] };
    remember(part.key, item);
    return { missing: [] };
  }
}

export async function writeBoth(tables: StoreTables, remember: Remember, clauses: MeterClauses[], parts: MeterPart[]): Promise<WriteOutcome> {
  try {
    await tables.db.send(
      new TransactWriteCommand({
        TransactItems: parts.map((part, i) => ({
          Update: { TableName: tables.keyTableName, Key: part.key, ...expression(clauses[i]!), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    if (!reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return 'conflict';
    const missing: ('key' | 'identity')[] = [];
    reasons.forEach((reason, i) => {
      const part = parts[i]!;
      if (reason.Code !== 'ConditionalCheckFailed') return;
      const item = returnedItem(reason.Item as Record<string, unknown> | undefined);
      if (item) remember(part.key, item);
      else missing.push(part.owner);
    });
    return { missing };
  }
  // Exact writes (admission-writes.ts): the meters after them are known.
  if (clauses.every((c) => c.after)) return { written: undefined };
  // Else a transaction returns no items: the figures are read after it.
  const { Responses } = await tables.db.send(
    new BatchGetCommand({ RequestItems: { [tables.keyTableName]: { Keys: parts.map((part) => part.key), ConsistentRead: true } } }),
  );
  let written: Record<string, unknown> = {};
  for (const item of Responses?.[tables.keyTableName] ?? []) {
    const part = parts.find((p) => p.key.pk === item.pk && p.key.sk === item.sk);
    if (part) remember(part.key, item);
    if (part?.owner === 'key') written = item;
  }
  return { written };
}
