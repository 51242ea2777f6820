/**
 * Reads of key items, with the rules every reader shares: a tombstone, a
 * TTL-expired item (DynamoDB may take up to 48 h to remove it) and a key of
 * another team all read as absent.
 */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { keyTableKeys, TEAM_INDEX } from '../../contract/tables';
import type { KeyItem } from './model';
import { epochSeconds } from '../platform/clock';

export interface KeyReadDeps {
  db: DynamoDBDocumentClient;
  keyTableName: string;
}

/** The key item as stored (tombstones included), strongly consistent. */
export async function getKeyItem(deps: KeyReadDeps, keyId: string): Promise<KeyItem | undefined> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.keyTableName, Key: keyTableKeys.key(keyId), ConsistentRead: true }),
  );
  return Item as KeyItem | undefined;
}

/** Whether DynamoDB TTL has (logically) removed the item already. */
export function ttlExpired(item: { ttl?: number }, now: Date): boolean {
  return item.ttl !== undefined && item.ttl <= epochSeconds(now);
}

/** A live (not deleted) key of the given team, or undefined. */
export async function getLiveKey(
  deps: KeyReadDeps,
  keyId: string,
  teamId: string,
  now: Date,
): Promise<KeyItem | undefined> {
  const item = await getKeyItem(deps, keyId);
  if (!item || item.entity !== 'key' || item.team_id !== teamId) return undefined;
  if (item.state !== 'active' || ttlExpired(item, now)) return undefined;
  return item;
}

/** Whether the key is in a live transition at `now` (old value still valid). */
export function inLiveTransition(key: KeyItem, now: Date): boolean {
  return (
    key.previous_hash !== undefined &&
    key.transition_ends_at !== undefined &&
    Date.parse(key.transition_ends_at) > now.getTime()
  );
}

/**
 * The team's other live manager keys (`sk` with `keys.manage`, not expired)
 * that can manage keys of `environment`: candidates to keep the team
 * manageable when one is deleted. A `test` manager cannot act on `live`
 * keys, so it never keeps a team's live keys manageable.
 */
export async function otherLiveManagers(
  deps: KeyReadDeps,
  teamId: string,
  exceptKeyId: string,
  environment: KeyItem['environment'],
  now: Date,
): Promise<KeyItem[]> {
  const managers: KeyItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.keyTableName,
        IndexName: TEAM_INDEX,
        KeyConditionExpression: 'gsi1pk = :team',
        FilterExpression: '#state = :active AND is_manager = :yes AND is_active = :yes',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':team': keyTableKeys.teamPartition(teamId), ':active': 'active', ':yes': true },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as KeyItem[]) {
      const expired = item.expires_at !== null && Date.parse(item.expires_at) <= now.getTime();
      const reaches = environment === 'test' || item.environment === 'live';
      if (item.id !== exceptKeyId && !expired && reaches) managers.push(item);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return managers;
}

/** The cancellation reason codes of a cancelled transaction, by item position. */
export function cancellationReasons(error: unknown): string[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

/** One item of a TransactWriteItems request. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
