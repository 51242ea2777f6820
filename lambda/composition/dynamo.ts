/**
 * DynamoDB clients, built once per process (module scope) and reused across
 * invocations. `DYNAMODB_ENDPOINT` points them at DynamoDB Local.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';
import { localEngineClientConfig } from './local-engine';
import { optionalSetting } from '../platform/environment';

let shared: DynamoDBDocumentClient | undefined;

/** A low-level client honouring `DYNAMODB_ENDPOINT` (local engine) when set. */
export function createDynamoClient(): DynamoDBClient {
  const endpoint = config.dynamoEndpoint;
  return new DynamoDBClient(endpoint ? localEngineClientConfig(endpoint, optionalSetting('AWS_REGION') ?? 'us-east-1') : {});
}

/** The shared document client (native JS types, empty values removed). */
export function documentClient(): DynamoDBDocumentClient {
  shared ??= documentClientOf(createDynamoClient());
  return shared;
}

/** A document client over `client` with the house marshalling options. */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
