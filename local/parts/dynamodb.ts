import { startDynamoLocal } from '../dynamodb-local';
import { type LocalRuntimePart } from './part';
import { dynamoDbPath } from '../settings';

/**
 * DynamoDB Local, then the environment the handlers read (set before any
 * handler module is imported: the server imports them on first request).
 */
export const dynamoLocalPart: LocalRuntimePart = {
  name: 'DynamoDB Local',
  async start(context) {
    const { settings } = context;
    const dynamo = await startDynamoLocal({ port: settings.dynamoPort, dbPath: dynamoDbPath(settings.dataDir) });
    context.dynamo = dynamo;
    context.dataDirClaim?.update({
      dynamodbEndpoint: dynamo.endpoint,
      keyTableName: settings.keyTableName,
      auditTableName: settings.auditTableName,
    });
    return () => dynamo.stop();
  },
};
