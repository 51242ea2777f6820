import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

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
