/**
 * Calls the management handlers the way API Gateway does: a REST (v1) proxy
 * event built from test/fixtures/apigw-rest-event.json. Every value a
 * response issues is recorded for the end-of-run plaintext sweep.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import fixture from '../fixtures/apigw-rest-event.json';
import { recordIssuedValue } from './issued-values';
import { expectDocumentedResponse } from './openapi-responses';
import type { RouteDefinition } from '../../lambda/contract/routes';
import { portsOf } from '../../lambda/composition/services';
import { ROUTES, functionEntry, type ManagerRouteName } from '../../lambda/routes';
import { testServices } from './services';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../../lambda/handlers/bootstrap-team-key';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** The routes `call` sends to: the managers', and the public reads (a query, no body to check). */
export type Endpoint = ManagerRouteName | 'audit-public-key';

/** The route's own handler file, found by the registry's name (jest's require transforms it), made with the tests' services. */
function handlerOf(route: RouteDefinition): Handler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { makeHandler } = require(functionEntry(route.name)) as { makeHandler: (services: () => unknown) => unknown };
  // Exactly the route's declared ports, as its Lambda bundle has: a port missing from its route.ts fails here.
  return makeHandler(() => portsOf(testServices(), route.ports)) as Handler;
}

/**
 * Every management route of the registry, its handler made with the tests'
 * services. A handler is required when a test first reaches it: a test file
 * loads only the routes it calls (each file has its own module registry, so
 * loading all 25 cost every file the compile of all of them).
 */
export const ENDPOINTS = Object.fromEntries(
  ROUTES.filter((route) => route.management || (route.caller === 'public' && route.input === 'query')).map((route: RouteDefinition) => {
    let handler: Handler | undefined;
    return [
      route.name,
      Object.defineProperty({ ...route }, 'handler', { enumerable: true, get: () => (handler ??= handlerOf(route)) }) as RouteDefinition & { handler: Handler },
    ];
  }),
) as Record<Endpoint, RouteDefinition & { handler: Handler }>;

export interface CallOptions {
  /** Bearer value; omitted → no Authorization header. */
  key?: string;
  /** JSON-serialised as the body. */
  body?: unknown;
  /** What API Gateway passes from the management authorizer (`requestContext.authorizer`). */
  authorizerContext?: Record<string, unknown>;
  /** Query parameters (GET routes). */
  query?: Record<string, string>;
  /** Query parameters given more than once, as API Gateway hands them over (`multiValueQueryStringParameters`; the single-value map holds the last). */
  repeatedQuery?: Record<string, string[]>;
  /** Sent as the body verbatim (overrides `body`). */
  rawBody?: string | null;
  /** Extra or replacing headers; a value of undefined removes the header. */
  headers?: Record<string, string | undefined>;
  /** Headers sent more than once, as API Gateway hands them over (`multiValueHeaders`); `headers` then holds the last value. */
  repeatedHeaders?: Record<string, string[]>;
  sourceIp?: string;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

function collectIssuedValues(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const record = body as { data?: { key?: unknown }; new_key?: unknown };
  if (typeof record.data?.key === 'string') recordIssuedValue(record.data.key);
  if (typeof record.new_key === 'string') recordIssuedValue(record.new_key);
}

/** The query of `options` as API Gateway's two maps. */
function queryParameters(options: CallOptions): {
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters: Record<string, string[]> | null;
} {
  if (!options.query && !options.repeatedQuery) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const multi: Record<string, string[]> = Object.fromEntries(Object.entries(options.query ?? {}).map(([name, value]) => [name, [value]]));
  Object.assign(multi, options.repeatedQuery);
  return {
    queryStringParameters: Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values[values.length - 1] as string])),
    multiValueQueryStringParameters: multi,
  };
}

export async function call(endpoint: Endpoint, options: CallOptions = {}): Promise<CallResult> {
  const route = ENDPOINTS[endpoint];
  const requestId = randomUUID();
  const headers: Record<string, string> = { ...fixture.headers };
  if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const multiValueHeaders: Record<string, string[]> = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
  for (const [name, values] of Object.entries(options.repeatedHeaders ?? {})) {
    multiValueHeaders[name] = values;
    headers[name] = values[values.length - 1] as string;
  }
  const event = {
    ...fixture,
    resource: route.path,
    path: route.path,
    httpMethod: route.method,
    headers,
    multiValueHeaders,
    body: options.rawBody !== undefined ? options.rawBody : options.body === undefined ? null : JSON.stringify(options.body),
    ...queryParameters(options),
    requestContext: {
      ...fixture.requestContext,
      resourcePath: route.path,
      httpMethod: route.method,
      requestId,
      authorizer: options.authorizerContext ?? null,
      identity: { ...fixture.requestContext.identity, sourceIp: options.sourceIp ?? fixture.requestContext.identity.sourceIp },
    },
  } as unknown as APIGatewayProxyEvent;
  const context = { awsRequestId: requestId, functionName: `api-key-service-${endpoint}`, getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
  const result = await route.handler(event, context);
  const text = result.body ?? '';
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  collectIssuedValues(body);
  const answer = { status: result.statusCode, headers: (result.headers ?? {}) as Record<string, string>, body };
  expectDocumentedResponse(route.path, route.method, answer);
  return answer;
}

export interface TestTeam {
  teamId: string;
  userId: string;
  /** The bootstrap manager key (live sk, keys.manage + enc.*:read). */
  key: string;
  keyId: string;
}

/** A fresh team with its bootstrap manager key. */
export async function newTeam(environment: 'live' | 'test' = 'live'): Promise<TestTeam> {
  const teamId = randomUUID();
  const userId = randomUUID();
  await assignTeamPlan(testServices(), teamId, 'default', localUsageKeys);
  const boot = await bootstrapTeamKey(testServices(), { teamId, environment, userId });
  recordIssuedValue(boot.key);
  return { teamId, userId, key: boot.key, keyId: boot.id };
}

/**
 * A team made once for the enclosing describe (in its `beforeAll`); the
 * returned object is filled in before the first test runs.
 */
export function teamPerSuite(environment: 'live' | 'test' = 'live'): TestTeam {
  const team = {} as TestTeam;
  beforeAll(async () => {
    Object.assign(team, await newTeam(environment));
  });
  return team;
}

/** The audit actor a management call by the team's bootstrap key records. */
export function actorOf(team: TestTeam, request: { sourceIp: string; userAgent: string; requestId: string }) {
  return { user_id: team.userId, key_id: team.keyId, source_ip: request.sourceIp, user_agent: request.userAgent, request_id: request.requestId };
}

/** Creates a key through the endpoint; fails the test unless it answers 201. */
export async function createKey(
  team: Pick<TestTeam, 'key' | 'teamId'>,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; key: string; data: Record<string, unknown> }> {
  const response = await call('generate-api-key', {
    key: team.key,
    body: { name: 'Test key', type: 'sk', environment: 'live', team_id: team.teamId, ...overrides },
  });
  if (response.status !== 201) {
    throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return { id: response.body.data.id, key: response.body.data.key, data: response.body.data };
}
