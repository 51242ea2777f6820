import type { LeaseSettings } from '../../lambda/domain/usage-lease';
/**
 * Helpers of the verification tests: calls to the verify endpoint and the
 * authorizer the way API Gateway makes them, keys with restrictions, and a
 * DynamoDB client that counts its requests.
 */
import { testServices, useTestServices } from '../support/services';
import { randomInt, randomUUID } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import fixture from '../fixtures/apigw-rest-event.json';
import { makeHandler as makeVerifyHandler } from '../../lambda/routes/verify-api-key/handler';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CallResult } from '../support/api';
import { expectDocumentedResponse } from '../support/openapi-responses';

const verifyHandler = makeVerifyHandler(testServices);

export const VERIFY_PATH = '/functions/v1/verify-api-key';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A random address in 10.0.0.0/8, so per-source guess counters of different tests never meet. */
export function randomSourceIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

export interface VerifyCallOptions {
  /** Extra or replacing headers; undefined removes one. */
  headers?: Record<string, string | undefined>;
  /** Sent verbatim instead of the JSON body. */
  rawBody?: string | null;
  sourceIp?: string;
  method?: 'POST' | 'OPTIONS';
  /** The verify handler to call (another instance, with services of its own); default the test services' one. */
  handler?: ReturnType<typeof makeVerifyHandler>;
}

function lambdaContext(requestId: string): Context {
  return { awsRequestId: requestId, getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
}

/** Calls POST (or OPTIONS) /functions/v1/verify-api-key through its handler, as API Gateway does. */
export async function callVerify(body: unknown, options: VerifyCallOptions = {}): Promise<CallResult> {
  const requestId = randomUUID();
  const method = options.method ?? 'POST';
  const headers: Record<string, string> = { ...fixture.headers };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const event = {
    ...fixture,
    resource: VERIFY_PATH,
    path: VERIFY_PATH,
    httpMethod: method,
    headers,
    body: options.rawBody !== undefined ? options.rawBody : body === undefined ? null : JSON.stringify(body),
    requestContext: {
      ...fixture.requestContext,
      resourcePath: VERIFY_PATH,
      httpMethod: method,
      requestId,
      identity: { ...fixture.requestContext.identity, sourceIp: options.sourceIp ?? randomSourceIp() },
    },
  } as unknown as APIGatewayProxyEvent;
  const result = await ((options.handler ?? verifyHandler) as unknown as ProxyHandler)(event, lambdaContext(requestId));
  let parsed: unknown = result.body;
  try {
    parsed = JSON.parse(result.body);
  } catch {
    // not JSON: keep the text
  }
  const answer = { status: result.statusCode, headers: (result.headers ?? {}) as Record<string, string>, body: parsed };
  // OPTIONS (the CORS preflight) is not an operation of the document.
  if (method === 'POST') expectDocumentedResponse(VERIFY_PATH, method, answer);
  return answer;
}

export const METHOD_ARN_PREFIX = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/';

export interface AuthorizerCallOptions {
  headers?: Record<string, string>;
  /** Headers sent more than once (`multiValueHeaders`); `headers` then holds the last value. */
  repeatedHeaders?: Record<string, string[]>;
  /** `METHOD/path` after the stage, e.g. `GET/tiles/1`. */
  resource?: string;
  sourceIp?: string;
}

/** A REQUEST authorizer event for `resource`. */
export function authorizerEvent(options: AuthorizerCallOptions = {}): APIGatewayRequestAuthorizerEvent {
  const resource = options.resource ?? 'GET/tiles/1';
  const [httpMethod, ...path] = resource.split('/');
  return {
    type: 'REQUEST',
    methodArn: METHOD_ARN_PREFIX + resource,
    resource: `/${path.join('/')}`,
    path: `/${path.join('/')}`,
    httpMethod,
    headers: {
      ...options.headers,
      ...Object.fromEntries(Object.entries(options.repeatedHeaders ?? {}).map(([name, values]) => [name, values[values.length - 1]])),
    },
    multiValueHeaders: {
      ...Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name, [value]])),
      ...options.repeatedHeaders,
    },
    pathParameters: {},
    queryStringParameters: {},
    multiValueQueryStringParameters: {},
    stageVariables: {},
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      httpMethod,
      identity: { sourceIp: options.sourceIp ?? randomSourceIp(), userAgent: 'jest' },
      path: `/prod/${path.join('/')}`,
      stage: 'prod',
      requestId: randomUUID(),
      resourceId: 'r1',
      resourcePath: `/${path.join('/')}`,
    },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

/** Invokes an authorizer handler; resolves with its result or the message it threw. */
export async function callAuthorizer(handler: unknown, options: AuthorizerCallOptions = {}): Promise<{ result?: APIGatewayAuthorizerResult; thrown?: string }> {
  try {
    const result = await (handler as AuthorizerHandler)(authorizerEvent(options), lambdaContext(randomUUID()));
    return { result };
  } catch (error) {
    return { thrown: (error as Error).message };
  }
}

export interface CountedRequest {
  /** e.g. `GetItemCommand`, `UpdateItemCommand`. */
  command: string;
  /** HTTP attempts (retries included). */
  attempts: number;
  /** The request's `UpdateExpression`, when it has one. */
  updateExpression?: string;
}

/** A document client on the test engine that counts its requests (and HTTP attempts); destroy it after. */
export function countingDocumentClient(): { db: DynamoDBDocumentClient; requests: CountedRequest[]; destroy(): void } {
  const requests: CountedRequest[] = [];
  const client = DynamoDBDocumentClient.from(createDynamoClient(), { marshallOptions: { removeUndefinedValues: true } });
  const counted = new WeakMap<object, CountedRequest>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const { UpdateExpression } = args.input as { UpdateExpression?: string };
      const entry: CountedRequest = { command: String(context.commandName), attempts: 0, ...(UpdateExpression ? { updateExpression: UpdateExpression } : {}) };
      counted.set(context, entry);
      requests.push(entry);
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  // After the retry middleware: runs once per HTTP attempt.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const entry = counted.get(context);
      if (entry) entry.attempts += 1;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'countAttempts' },
  );
  return {
    db: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    requests,
    destroy: () => client.destroy(),
  };
}

/** Installs test services whose DynamoDB client counts its requests (with these lease settings); `restore` puts the defaults back. */
export function countDynamoRequests(usageLeases?: Partial<LeaseSettings>): { requests: CountedRequest[]; reset(): void; restore(): void } {
  const counting = countingDocumentClient();
  useTestServices({ db: counting.db, ...(usageLeases ? { usageLeases } : {}) });
  return {
    requests: counting.requests,
    reset: () => counting.requests.splice(0, counting.requests.length),
    restore: () => {
      useTestServices({});
      counting.destroy();
    },
  };
}
