/**
 * The services every storage section of `npm run bench` measures: the
 * bench's tables and settings, silent logs and metrics, usage leases on or
 * off, a client that counts the usage writes and keeps the requests as sent,
 * and a verify request as API Gateway hands it over.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KEY_TABLE, AUDIT_TABLE } from '../lambda/contract/tables';
import { localDynamoClient } from '../local/dynamodb-local';
import { documentClientOf } from '../lambda/composition/dynamo';
import { createServices, type Services } from '../lambda/composition/services';
import { systemClock } from '../lambda/platform/clock';
import { sinkObservability } from '../lambda/platform/observability-sinks';

export const TABLES = { keyTable: `bench-${KEY_TABLE.logicalName}`, auditTable: `bench-${AUDIT_TABLE.logicalName}` };

/** The source address of every benchmarked verification (one guess counter). */
export const BENCH_SOURCE_IP = '198.51.100.7';

export const BENCH_SETTINGS = { keyTableName: TABLES.keyTable, auditTableName: TABLES.auditTable, planRateLimit: 1_000_000, guessLimitPerMinute: 1_000_000 };

/**
 * The services under test, and a document client of their own for the raw
 * requests. `leases`: whether the usage store leases hot keys' capacity
 * (off: every verification writes its use, what a key at a low rate pays).
 */
export function benchServices(
  endpoint: string,
  leases: boolean,
): { services: Services; doc: DynamoDBDocumentClient; usageWrites(): number; lastInput(command: 'BatchGetItemCommand' | 'UpdateItemCommand'): unknown } {
  const doc = documentClientOf(localDynamoClient(endpoint));
  const db = documentClientOf(localDynamoClient(endpoint));
  let writes = 0;
  const lastInputs = new Map<string, unknown>();
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateCommand' || context.commandName === 'UpdateItemCommand') writes += 1;
      // The services' requests as sent, to replay them without the handler (each request's input is built anew and not changed after).
      lastInputs.set(String(context.commandName), args.input);
      return next(args);
    },
    { step: 'initialize', name: 'countUsageWrites' },
  );
  const services = silentServices(db, leases);
  return { services, doc, usageWrites: () => writes, lastInput: (command) => lastInputs.get(command) };
}

/** The services a bench run measures: the bench's settings, silent logs and metrics, usage leases on or off. */
export function silentServices(db: DynamoDBDocumentClient, leases: boolean) {
  return createServices({
    db,
    clock: systemClock,
    settings: BENCH_SETTINGS,
    observe: sinkObservability(
      () => undefined,
      () => undefined,
    ),
    usageLeases: { enabled: leases },
  });
}

export function verifyEvent(value: string): APIGatewayProxyEvent {
  return {
    resource: '/functions/v1/verify-api-key',
    path: '/functions/v1/verify-api-key',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    isBase64Encoded: false,
    body: JSON.stringify({ key: value }),
    requestContext: { requestId: randomUUID(), identity: { sourceIp: BENCH_SOURCE_IP } },
  } as unknown as APIGatewayProxyEvent;
}
