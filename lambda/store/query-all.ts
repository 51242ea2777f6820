import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { TEAM_INDEX } from '../contract/tables';

/**
 * Every item a Query matches, page after page (for small result sets: a team's
 * managers, a key's months), each page read by `read` (an entity's readAll);
 * with `enough`, it stops after the first page whose items, added to the ones
 * before, are enough.
 */
export async function queryAll<T>(
  db: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
  read: (items: Record<string, unknown>[] | undefined) => T[],
  enough: (items: readonly T[]) => boolean = () => false,
): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...read(page.Items));
    start = page.LastEvaluatedKey;
  } while (start && !enough(items));
  return items;
}

/** Every item of one partition of the key table's team index (`gsi1pk` = `partition`: a policy's teams, the moved chains, the signing keys), each read by `read`. */
export function teamIndexPartition<T>(
  tables: { readonly db: DynamoDBDocumentClient; readonly keyTableName: string },
  partition: string,
  read: (items: Record<string, unknown>[] | undefined) => T[],
): Promise<T[]> {
  return queryAll(
    tables.db,
    {
      TableName: tables.keyTableName,
      IndexName: TEAM_INDEX,
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': partition },
    },
    read,
  );
}
