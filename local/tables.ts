/**
 * Creates the service's tables in DynamoDB Local from the same definitions
 * the CDK stack uses (`lambda/contract/tables.ts`), so the local and the
 * deployed tables cannot drift apart.
 */
import {
  CreateTableCommand,
  UpdateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { AUDIT_TABLE, KEY_TABLE, keyAttributes, type TableDefinition } from '../lambda/contract/tables';

/** Physical table names. */
export interface TableNames {
  readonly keyTable: string;
  readonly auditTable: string;
}

/** The CreateTable request for a table definition under a physical name. */
export function createTableInput(definition: TableDefinition, tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes(definition).map(({ name, type }) => ({ AttributeName: name, AttributeType: type })),
    KeySchema: [
      { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: definition.stream ? { StreamEnabled: true, StreamViewType: definition.stream } : undefined,
  };
}

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    throw error;
  }
}

async function ensureTimeToLive(client: DynamoDBClient, tableName: string, attribute: string): Promise<void> {
  const current = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const description = current.TimeToLiveDescription;
  if (description?.TimeToLiveStatus === 'ENABLED' && description.AttributeName === attribute) return;
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { Enabled: true, AttributeName: attribute } }));
}

/**
 * Adds the indexes of `definition` that a table made by an older version
 * lacks (the audit table's chain index, issue 48), one at a time as
 * DynamoDB allows, and waits until each is active: a data directory from
 * before an index keeps working.
 */
async function ensureIndexes(client: DynamoDBClient, definition: TableDefinition, tableName: string): Promise<string[]> {
  const added: string[] = [];
  for (const index of createTableInput(definition, tableName).GlobalSecondaryIndexes ?? []) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if ((Table?.GlobalSecondaryIndexes ?? []).some((existing) => existing.IndexName === index.IndexName)) continue;
    const attributes = keyAttributes(definition).filter(({ name }) => index.KeySchema?.some((key) => key.AttributeName === name));
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributes.map(({ name, type }) => ({ AttributeName: name, AttributeType: type })),
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } }],
      }),
    );
    for (let waited = 0; waited < 60_000; waited += 200) {
      const { Table: now } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (now?.GlobalSecondaryIndexes?.find((existing) => existing.IndexName === index.IndexName)?.IndexStatus === 'ACTIVE') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    added.push(index.IndexName ?? '');
  }
  return added;
}

/** Waits until `tableName` exists and is ACTIVE (a minute at most). */
async function untilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
}

/**
 * Creates `tableName` from `definition`, which must not exist yet, with its
 * TTL on. Waits only when the engine answers the create with a table that
 * is not yet ACTIVE (DynamoDB does; DynamoDB Local answers ACTIVE), and
 * turns TTL on without asking first: a new table has none. Two requests
 * when the engine is local, where `ensureTable` on a new name sent five.
 */
export async function createTable(client: DynamoDBClient, definition: TableDefinition, tableName: string): Promise<void> {
  const { TableDescription } = await client.send(new CreateTableCommand(createTableInput(definition, tableName)));
  if (TableDescription?.TableStatus !== 'ACTIVE') {
    await untilActive(client, tableName);
  }
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { Enabled: true, AttributeName: definition.ttlAttribute } }));
}

/**
 * Creates one table when it is missing (or adds the indexes it lacks) and
 * makes sure its TTL is on. Returns whether the table was created by this call.
 */
export async function ensureTable(client: DynamoDBClient, definition: TableDefinition, tableName: string): Promise<boolean> {
  if (!(await tableExists(client, tableName))) {
    try {
      await createTable(client, definition, tableName);
      return true;
    } catch (error) {
      // Another process created it between our check and our call: fine, it is made sure of below.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    await untilActive(client, tableName);
  } else {
    await ensureIndexes(client, definition, tableName);
  }
  await ensureTimeToLive(client, tableName, definition.ttlAttribute);
  return false;
}

/**
 * Creates the key table and the audit table (with its NEW_IMAGE stream) when
 * missing and turns TTL on for both. Safe to call on every start.
 */
export async function ensureTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  await ensureTable(client, KEY_TABLE, names.keyTable);
  await ensureTable(client, AUDIT_TABLE, names.auditTable);
}

/** Creates the key table and the audit table under names that are new (`createTable`, both at once). */
export async function createTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  await Promise.all([createTable(client, KEY_TABLE, names.keyTable), createTable(client, AUDIT_TABLE, names.auditTable)]);
}
