import { localDynamoClient } from '../dynamodb-local';
import { ensureTables } from '../tables';
import { required, type LocalRuntimePart } from './part';

/** The key and audit tables, from lambda/contract/tables.ts. */
export const tablesPart: LocalRuntimePart = {
  name: 'tables',
  async start(context) {
    const client = localDynamoClient(required(context.dynamo, 'DynamoDB Local').endpoint);
    try {
      await ensureTables(client, { keyTable: context.settings.keyTableName, auditTable: context.settings.auditTableName });
    } finally {
      client.destroy();
    }
  },
};
