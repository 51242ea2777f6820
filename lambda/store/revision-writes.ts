/**
 * What the stores of team-scoped things with a revision (webhook endpoints,
 * identities) share: a page of the team's items on the team index, and the
 * update that changes an item only while it is still at the revision read.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TEAM_INDEX } from '../contract/tables';
import type { ItemKey } from './entities/entity';
import type { StoreTables, TransactItem } from './transactions';

/** A page of one partition of the team index, and the position after it. */
export async function teamIndexPage(
  tables: StoreTables,
  partition: string,
  limit: number,
  start?: Record<string, string>,
): Promise<{ items: Record<string, unknown>[] | undefined; last?: Record<string, string> }> {
  const { Items, LastEvaluatedKey } = await tables.db.send(
    new QueryCommand({
      TableName: tables.keyTableName,
      IndexName: TEAM_INDEX,
      KeyConditionExpression: 'gsi1pk = :team',
      ExpressionAttributeValues: { ':team': partition },
      Limit: limit,
      ExclusiveStartKey: start,
    }),
  );
  return { items: Items, last: LastEvaluatedKey as Record<string, string> | undefined };
}

/**
 * The transaction item that sets `changes` (undefined ones left out), moves
 * the revision on by one and stamps `updated_at`, if the item at `key` is
 * still at `revision`.
 */
export function revisionUpdate(
  tableName: string,
  key: ItemKey,
  revision: number,
  changes: Record<string, unknown>,
  at: Date,
  /** Further clauses on the same item (an identity's meter, store/meter-updates.ts). */
  extra: { sets: string[]; removes: string[]; names: Record<string, string>; values: Record<string, unknown> } = {
    sets: [],
    removes: [],
    names: {},
    values: {},
  },
): TransactItem {
  const names: Record<string, string> = { '#revision': 'revision', '#updated': 'updated_at' };
  const values: Record<string, unknown> = { ':revision': revision, ':next': revision + 1, ':at': at.toISOString() };
  const sets = ['#revision = :next', '#updated = :at'];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${[...sets, ...extra.sets].join(', ')}${extra.removes.length > 0 ? ` REMOVE ${extra.removes.join(', ')}` : ''}`,
      ConditionExpression: '#revision = :revision',
      ExpressionAttributeNames: { ...names, ...extra.names },
      ExpressionAttributeValues: { ...values, ...extra.values },
    },
  };
}
