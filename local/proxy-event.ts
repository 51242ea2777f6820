/**
 * The request as API Gateway hands it to a Lambda proxy integration (REST,
 * payload 1.0): the event built from what the local server read, and the
 * Lambda context its handler is called with.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { clientNamedMap } from '../lambda/platform/client-named-map';
import type { BucketLimits } from './token-bucket';

/** Routes can be swapped in tests; the shape is the production one with a wider method. */
export interface LocalRoute {
  readonly method: string;
  readonly path: string;
  /** The function's name (its handler file: lambda/routes/<name>/handler.ts). */
  readonly name: string;
  /** A management route: it passes the gateway stage (authorizer, usage plan) first. */
  readonly management?: boolean;
  /** The handler answers the path's CORS preflight; elsewhere OPTIONS is 405, as in API Gateway. */
  readonly preflight?: boolean;
  /** The route's own body limit (the server's otherwise). */
  readonly maxBodyBytes?: number;
  /** The method's own throttle across callers, as the stage's per-method setting in AWS. */
  readonly methodThrottle?: BucketLimits;
}

/** The client address as API Gateway reports it: IPv4-mapped IPv6 shown as plain IPv4. */
export function sourceIpOf(remoteAddress: string | undefined): string {
  if (!remoteAddress) return '';
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice('::ffff:'.length) : remoteAddress;
}

/** API Gateway's `requestTime` format: `09/Apr/2015:12:34:56 +0000`. */
function requestTimeOf(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** Headers with the client's casing: `headers` keeps the last value, `multiValueHeaders` all of them. */
export function headersOf(rawHeaders: readonly string[]): Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'> {
  const headers = clientNamedMap<string>();
  const multiValueHeaders = clientNamedMap<string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const [name, value] = [rawHeaders[i], rawHeaders[i + 1]];
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  return { headers, multiValueHeaders };
}

function queryOf(searchParams: URLSearchParams): Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> {
  const single = clientNamedMap<string>();
  const multi = clientNamedMap<string[]>();
  for (const [name, value] of searchParams) {
    single[name] = value;
    (multi[name] ??= []).push(value);
  }
  const empty = Object.keys(single).length === 0;
  return { queryStringParameters: empty ? null : single, multiValueQueryStringParameters: empty ? null : multi };
}

export interface RequestFacts {
  readonly method: string;
  /** The request target; only its path and query are meaningful. */
  readonly url: URL;
  readonly host: string | undefined;
  readonly rawHeaders: readonly string[];
  readonly remoteAddress: string | undefined;
  readonly body: Buffer;
  readonly requestId: string;
  readonly receivedAt: Date;
}

/** The API Gateway REST v1 proxy event for one request on `route`. */
export function toProxyEvent(facts: RequestFacts, route: LocalRoute): APIGatewayProxyEvent {
  const { headers, multiValueHeaders } = headersOf(facts.rawHeaders);
  const userAgent = Object.entries(headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1] ?? null;
  const method = facts.method.toUpperCase();
  const pathname = facts.url.pathname;
  return {
    httpMethod: method,
    path: pathname,
    resource: route.path,
    headers,
    multiValueHeaders,
    ...queryOf(facts.url.searchParams),
    pathParameters: null,
    stageVariables: null,
    body: facts.body.length > 0 ? facts.body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      path: pathname,
      stage: 'local',
      requestId: facts.requestId,
      requestTime: requestTimeOf(facts.receivedAt),
      requestTimeEpoch: facts.receivedAt.getTime(),
      resourceId: 'local',
      resourcePath: route.path,
      domainName: facts.host ?? 'localhost',
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: sourceIpOf(facts.remoteAddress),
        user: null,
        userAgent,
        userArn: null,
      },
    },
  };
}

/** Lambda's time budget for one invocation, as the deployed functions have it. */
const INVOCATION_BUDGET_MS = 30_000;

/** A minimal Lambda context: the request id as `awsRequestId`, a 30 s budget. */
export function lambdaContext(route: LocalRoute, requestId: string): Context {
  const functionName = `local-${route.name}`;
  const deadline = Date.now() + INVOCATION_BUDGET_MS;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
