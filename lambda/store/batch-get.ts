import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The most keys one BatchGetItem may ask for. */
export const BATCH_GET_LIMIT = 100;

/**
 * Every item of `keys` in one table, strongly consistent, by BatchGetItem
 * (at most 100 keys). BatchGetItem may leave keys unprocessed under
 * throttling: those are asked again with a short backoff, five times at most.
 */
export async function batchGetAll(
  db: DynamoDBDocumentClient,
  table: string,
  keys: ReadonlyArray<Record<string, unknown>>,
  projection?: string,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let pending = [...keys];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === 5) throw new Error('BatchGetItem left keys unprocessed after 5 attempts');
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
    const result = await db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ProjectionExpression: projection } } }));
    found.push(...(result.Responses?.[table] ?? []));
    pending = result.UnprocessedKeys?.[table]?.Keys ?? [];
  }
  return found;
}
