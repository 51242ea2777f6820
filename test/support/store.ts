/** Direct reads of the tables, for assertions about what is (and is not) stored. */
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambda/composition/dynamo';
import { testServices } from './services';
import { hashKeyValue } from '../../lambda/domain/key-values';
import { config } from '../../lambda/composition/config';
import { summariseUsage } from '../../lambda/domain/usage-figures';
import type { UsageItem } from '../../lambda/domain/model';
import { KEY, teamKeysPartition } from '../../lambda/store/entities/key';
import { TEAM } from '../../lambda/store/entities/team';
import { USAGE } from '../../lambda/store/entities/usage';
import { VALUE_LOOKUP } from '../../lambda/store/entities/value-lookup';

export async function getItem(key: { pk: string; sk: string }, table = config.keyTableName) {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return Item;
}

export const keyItem = (keyId: string) => getItem(KEY.key(keyId));
/** A key's usage item, once the test services have written the uses they admitted from a lease (usage/usage-lease.ts). */
export async function usageItem(keyId: string): Promise<Record<string, unknown> | undefined> {
  await testServices().usage.flushPending();
  return getItem(USAGE.key(keyId));
}
export const teamItem = (teamId: string) => getItem(TEAM.key(teamId));
export const lookupItemOf = (value: string) => getItem(VALUE_LOOKUP.key(hashKeyValue(value, config.pepper)));

/** Every value-lookup item that points at the key (full scan; small test tables). */
export async function lookupItemsForKey(keyId: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({
        TableName: config.keyTableName,
        FilterExpression: 'entity = :value AND key_id = :id',
        ExpressionAttributeValues: { ':value': 'value', ':id': keyId },
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    found.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
}

/** The audit records of one key whose `event_type` is `eventType`. */
export async function auditRecordsOfType(keyId: string, eventType: string): Promise<Record<string, unknown>[]> {
  return (await auditRecordsOf(keyId)).filter((record) => record.event_type === eventType);
}

/** Audit records of an identity, oldest first. */
export async function identityAuditRecords(identityId: string): Promise<Record<string, unknown>[]> {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config.auditTableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `IDENTITY#${identityId}` },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** Audit records of a key, oldest first. */
export async function auditRecordsOf(keyId: string): Promise<Record<string, unknown>[]> {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config.auditTableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `KEY#${keyId}` },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** Every item of a team's keys in the key table (key items via the team index). */
export async function teamKeyCount(teamId: string): Promise<number> {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config.keyTableName,
      IndexName: 'byTeam',
      KeyConditionExpression: 'gsi1pk = :team',
      ExpressionAttributeValues: { ':team': teamKeysPartition(teamId) },
    }),
  );
  return Items?.length ?? 0;
}

/** Per-transition use counts of a stored usage item, as `{ g2: { old, new } }`. */
export function transitionsOf(usage: Record<string, unknown> | undefined) {
  return summariseUsage(usage as UsageItem | undefined, new Date()).transitions;
}
