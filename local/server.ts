/**
 * The local stand-in for API Gateway (REST, Lambda proxy integration): a
 * plain `node:http` server that turns each request into an
 * `APIGatewayProxyEvent`, calls the same handler module the Lambda runs, and
 * writes the proxy result back.
 *
 * What API Gateway itself answers is answered here too, in the service's
 * error shape and with the same statuses as the stack's gateway
 * (test/local/status-parity.test.ts holds one table for both): unknown path
 * (404), a method the path does not route, OPTIONS included unless a route
 * answers its own preflight (405 + `Allow`), body over `MAX_BODY_BYTES`
 * (413, handler not called); every such answer is readable cross-origin
 * (`Access-Control-Allow-Origin: *`), as the gateway responses are. Handlers
 * are imported lazily.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, ErrorCode, errorBody, internalErrorBody, type ErrorBody } from '../lambda/contract/errors';
import type { Logger } from '@aws-lambda-powertools/logger';
import { errorField } from '../lambda/platform/observability';
import { errorBodyWithoutKeyValues } from '../lambda/platform/redaction';
import { clientNamedMap } from '../lambda/platform/client-named-map';
import { terminalObservability } from './terminal-observability';
import type { PageSource } from './pages';
import { PLATFORM_PREFIX, type PlatformAnswer, type PlatformRequest } from './platform-stage';
import { MAX_BODY_BYTES, allowedMethods } from '../lambda/contract/routes';
import { ROUTES, functionEntry } from '../lambda/routes';
import { jsonResponse } from '../lambda/contract/response';
import { THROTTLED_MESSAGE } from '../lambda/contract/defaults';
import { TokenBucket, type BucketLimits } from './token-bucket';
import type { Services } from '../lambda/composition/services';

/** A Lambda proxy handler as the handler modules export it. */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult | undefined | void>;

/** Loads the handler of a route; undefined when its module does not exist (yet). */
export type HandlerLoader = (route: LocalRoute) => Promise<ProxyHandler | undefined>;

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

export type RouteResolution =
  | { readonly kind: 'matched'; readonly route: LocalRoute }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

/**
 * Which route serves `method` on `pathname` (no query string), as the stack's
 * API Gateway does: a path's own methods, OPTIONS where a route answers its
 * preflight, and 405 with `Allow` for any other method (the stack's ANY mock).
 */
export function resolveRoute(routes: readonly LocalRoute[], method: string, pathname: string): RouteResolution {
  const onPath = routes.filter((route) => route.path === pathname);
  if (onPath.length === 0) return { kind: 'not-found' };
  const upper = method.toUpperCase();
  const exact = onPath.find((route) => route.method === upper);
  if (exact) return { kind: 'matched', route: exact };
  const preflight = onPath.find((route) => route.preflight);
  if (upper === 'OPTIONS' && preflight) return { kind: 'matched', route: preflight };
  return { kind: 'method-not-allowed', allow: allowedMethods(routes, pathname) };
}

/**
 * Imports a route's handler (`lambda/routes/<name>/handler.ts`) on first use and keeps it. A missing
 * file is not cached, so a handler written while the server runs is found
 * on the next restart of tsx's module graph (or the next request, in tests).
 */
export function moduleHandlerLoader(services?: () => Services, entryOf: (name: string) => string = functionEntry): HandlerLoader {
  const loaded = new Map<string, ProxyHandler>();
  return async (route) => {
    const cached = loaded.get(route.name);
    if (cached) return cached;
    const file = entryOf(route.name);
    if (!existsSync(file)) return undefined;
    type HandlerModule = { handler?: unknown; makeHandler?: (services: () => Services) => unknown };
    const imported = (await import(file)) as HandlerModule & { default?: HandlerModule };
    const makeHandler = imported.makeHandler ?? imported.default?.makeHandler;
    // The local runtime's own services (its engine, clock, scheduler), never the environment's.
    const handler = services && makeHandler ? makeHandler(services) : (imported.handler ?? imported.default?.handler);
    if (typeof handler !== 'function') throw new Error(`${file} does not export a handler function`);
    loaded.set(route.name, handler as ProxyHandler);
    return handler as ProxyHandler;
  };
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
function headersOf(rawHeaders: readonly string[]): Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'> {
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

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: string | Buffer;
}

/** Marks a reply made by the server itself (not a handler's). */
const GATEWAY_MADE = Symbol('gateway-made');

/**
 * A gateway-made answer may be read by any page (`Access-Control-Allow-Origin: *`),
 * as the stack's gateway responses allow, so a browser sees a 404, 405, 413,
 * 401 or 429 in words. These bodies hold no data of any key.
 */
function withGatewayCors(reply: Reply): Reply {
  if (!(GATEWAY_MADE in reply)) return reply;
  return { ...reply, headers: { ...reply.headers, 'Access-Control-Allow-Origin': '*' } };
}

/** An error answered by the server itself, with the handlers' own response headers. */
function errorReply(status: number, body: ErrorBody, requestId: string, headers: Record<string, string> = {}): Reply {
  const response = jsonResponse(status, body, requestId, headers);
  return { status, headers: response.headers as Record<string, string>, body: response.body, [GATEWAY_MADE]: true } as Reply;
}

function apiErrorReply(error: ApiError, requestId: string): Reply {
  return errorReply(error.status, errorBodyWithoutKeyValues(error, requestId), requestId, { ...error.headers });
}

/**
 * The proxy result as HTTP. As in API Gateway, `multiValueHeaders` wins over
 * `headers` for a name both carry.
 */
function resultReply(result: APIGatewayProxyResult): Reply {
  const headers: Record<string, string | string[]> = {};
  const names = new Map<string, string>(); // lower-case → first spelling
  const put = (name: string, value: string | string[]) => {
    const lower = name.toLowerCase();
    const spelling = names.get(lower) ?? name;
    names.set(lower, spelling);
    headers[spelling] = value;
  };
  for (const [name, value] of Object.entries(result.headers ?? {})) put(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) put(name, values.map(String));
  const raw = result.body ?? '';
  return { status: result.statusCode, headers, body: result.isBase64Encoded ? Buffer.from(raw, 'base64') : raw };
}

function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger((value as { statusCode?: unknown }).statusCode) &&
    ((value as { body?: unknown }).body === undefined || typeof (value as { body?: unknown }).body === 'string')
  );
}

function send(response: ServerResponse, reply: Reply, requestId: string): void {
  response.statusCode = reply.status;
  for (const [name, value] of Object.entries(reply.headers)) response.setHeader(name, value);
  // API Gateway puts its request id on every response.
  if (!response.hasHeader('x-amzn-RequestId')) response.setHeader('x-amzn-RequestId', requestId);
  response.end(reply.body);
}

type BodyRead =
  | { readonly tooLarge: false; readonly aborted?: false; readonly body: Buffer }
  | { readonly tooLarge: true; readonly aborted?: false }
  | { readonly tooLarge: false; readonly aborted: true };

/**
 * Reads the body, stopping (and refusing) as soon as it exceeds `limit`
 * bytes; `aborted` when the client hangs up before the body is complete.
 */
function readBody(request: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ tooLarge: true });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeListener('data', onData);
        request.removeListener('end', onEnd);
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve({ tooLarge: false, body: Buffer.concat(chunks) });
    request.on('data', onData);
    request.once('end', onEnd);
    // Node reports a body cut short by the client as an `aborted` error (ECONNRESET): the client's doing, not ours.
    request.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.message === 'aborted' ? resolve({ tooLarge: false, aborted: true }) : reject(error),
    );
  });
}

export interface LocalServerOptions {
  /** Where its lines go. Default: the terminal's (local/terminal-observability.ts). */
  readonly logger?: Logger;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  readonly host?: string;
  /** Routes to serve. Default: `ROUTES` from lambda/routes/index.ts. */
  readonly routes?: readonly LocalRoute[];
  /** How handlers are found. Default: lazy import from `lambda/handlers/`. */
  readonly loadHandler?: HandlerLoader;
  /** Largest accepted body. Default `MAX_BODY_BYTES`. */
  readonly maxBodyBytes?: number;
  /** One entry per request (method, path, status, time; never headers, query strings or bodies). Default: none. */
  readonly logRequest?: (entry: AccessEntry) => void;
  /**
   * What API Gateway does before a management route's handler (authorizer,
   * usage plan): an answer instead of the handler's, or undefined to go on.
   * Default: none.
   */
  readonly gateway?: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult | undefined>;
  /** Pages served beside the API on GET and HEAD (local/pages.ts: the OpenAPI document, the reference, the console). Default: none. */
  readonly pages?: PageSource;
  /** A platform API behind the platform authorizer under `/platform/` (local/platform-stage.ts). Default: none (404). */
  readonly platform?: (request: PlatformRequest) => Promise<PlatformAnswer>;
}

/** What the access log records of a request. */
export interface AccessEntry {
  readonly method: string;
  /**
   * The route's path (or a page's) the request matched; `unknown` for any
   * other path, which is never logged as sent (a caller may put a key value
   * in it, encoded however it likes): only its length is.
   */
  readonly path: string;
  /** For an unknown path: its length in characters. */
  readonly path_length?: number;
  readonly status: number;
  readonly duration_ms: number;
  readonly request_id: string;
}

export interface LocalServer {
  readonly server: Server;
  readonly port: number;
  /** `http://<host>:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/** The request listener alone, for embedding in another server. */
export function createRequestListener(
  options: Omit<LocalServerOptions, 'port' | 'host'> = {},
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const routes = options.routes ?? ROUTES;
  const log = options.logger ?? terminalObservability().logger;
  const loadHandler = options.loadHandler ?? moduleHandlerLoader();
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const methodBuckets = new Map<string, TokenBucket>();

  async function answer(request: IncomingMessage, requestId: string, receivedAt: Date): Promise<Reply> {
    // Prefixing a fixed origin keeps a target such as `//x` a path, not a host.
    const target = request.url ?? '/';
    const url = new URL(`http://localhost${target.startsWith('/') ? target : `/${target}`}`);
    const method = request.method ?? 'GET';
    if (options.pages && (method === 'GET' || method === 'HEAD')) {
      const page = options.pages(url.pathname);
      if (page) return page;
    }
    if (options.platform && isPlatformPath(url.pathname)) {
      const answer = await options.platform({
        method,
        path: url.pathname.slice(PLATFORM_PREFIX.length),
        ...headersOf(request.rawHeaders),
        sourceIp: sourceIpOf(request.socket.remoteAddress),
        requestId,
      });
      return { status: answer.status, headers: answer.headers, body: answer.body };
    }
    const resolution = resolveRoute(routes, method, url.pathname);
    if (resolution.kind === 'not-found') {
      return apiErrorReply(new ApiError(ErrorCode.ROUTE_NOT_FOUND, `No route for ${url.pathname}.`), requestId);
    }
    if (resolution.kind === 'method-not-allowed') {
      const allow = resolution.allow.join(', ');
      return apiErrorReply(
        new ApiError(ErrorCode.METHOD_NOT_ALLOWED, `${method.toUpperCase()} is not allowed on ${url.pathname}; use ${allow}.`, [], {
          Allow: allow,
        }),
        requestId,
      );
    }
    const { route } = resolution;
    if (route.methodThrottle) {
      const bucketKey = `${route.method} ${route.path}`;
      const bucket = methodBuckets.get(bucketKey) ?? new TokenBucket(route.methodThrottle, receivedAt.getTime());
      methodBuckets.set(bucketKey, bucket);
      const taken = bucket.take(receivedAt.getTime());
      if (!taken.admitted) {
        return apiErrorReply(new ApiError(ErrorCode.THROTTLED, THROTTLED_MESSAGE, [], { 'Retry-After': String(taken.retryAfterSeconds) }), requestId);
      }
    }
    const bodyLimit = route.maxBodyBytes ?? maxBodyBytes;
    const read = await readBody(request, bodyLimit);
    if (read.aborted) {
      // Nobody is left to read the answer; the access line says what happened (a client error, not ours).
      log.info('request body cut short by the client', { request_id: requestId });
      return apiErrorReply(new ApiError(ErrorCode.VALIDATION_FAILED, 'The request body ended before it was complete.'), requestId);
    }
    if (read.tooLarge) {
      return apiErrorReply(new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body exceeds ${bodyLimit} bytes.`, [], { Connection: 'close' }), requestId);
    }

    const handler = await loadHandler(route);
    if (!handler) {
      log.error('handler not implemented', { request_id: requestId, handler: route.name });
      return errorReply(500, internalErrorBody(requestId), requestId);
    }
    const event = toProxyEvent(
      {
        method,
        url,
        host: request.headers.host,
        rawHeaders: request.rawHeaders,
        remoteAddress: request.socket.remoteAddress,
        body: read.body,
        requestId,
        receivedAt,
      },
      route,
    );
    const refused = route.management && options.gateway ? await options.gateway(event) : undefined;
    if (refused) return { ...resultReply(refused), [GATEWAY_MADE]: true } as Reply;
    const result = await handler(event, lambdaContext(route, requestId));
    if (!isProxyResult(result)) {
      log.error('handler returned no proxy result', { request_id: requestId, handler: route.name });
      return errorReply(500, internalErrorBody(requestId), requestId);
    }
    return resultReply(result);
  }

  return async (request, response) => {
    const requestId = randomUUID();
    const receivedAt = new Date();
    let reply: Reply;
    try {
      reply = withGatewayCors(await answer(request, requestId, receivedAt));
    } catch (error) {
      // Whatever a handler throws stays in the log; the caller gets the generic body.
      log.error('handler failed', { request_id: requestId, ...errorField(error) });
      reply = errorReply(500, internalErrorBody(requestId), requestId);
    }
    if (!request.complete) {
      // The body was refused unread: drop it and the connection after replying.
      response.shouldKeepAlive = false;
      response.once('finish', () => request.destroy());
    }
    send(response, reply, requestId);
    const pathname = (request.url ?? '/').split('?')[0] ?? '';
    const known = routes.some((route) => route.path === pathname) || (options.pages !== undefined && knownPage(options.pages, pathname));
    // A platform path is the platform team's own (it may hold anything): logged by its resource, as API Gateway's access log does.
    const platform = options.platform !== undefined && isPlatformPath(pathname);
    options.logRequest?.({
      method: request.method ?? '',
      ...(platform
        ? { path: `${PLATFORM_PREFIX}/{proxy+}`, path_length: pathname.length }
        : known
          ? { path: pathname }
          : { path: 'unknown', path_length: pathname.length }),
      status: reply.status,
      duration_ms: Date.now() - receivedAt.getTime(),
      request_id: requestId,
    });
  };
}

/** Whether `pathname` is under the platform stage's prefix. */
function isPlatformPath(pathname: string): boolean {
  return pathname === PLATFORM_PREFIX || pathname.startsWith(`${PLATFORM_PREFIX}/`);
}

/** Whether `pathname` is one of the pages (asked as GET, whatever the request's method); a page source answers from memory. */
function knownPage(pages: PageSource, pathname: string): boolean {
  try {
    return pages(pathname) !== undefined;
  } catch {
    return false;
  }
}

/** Starts the local API on `host:port`; resolves once it listens. */
export function createLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const host = options.host ?? '127.0.0.1';
  const listener = createRequestListener(options);
  const server = createServer((request, response) => {
    void listener(request, response);
  });
  // A client that half-closes after sending its request (FIN before our
  // answer, as `nc -q` or a raw socket does) still gets its answer: without
  // this, Node drops such a request whose handler has not answered yet.
  (server as Server & { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
  // An `Expect` header other than 100-continue: answered like any request
  // (API Gateway does not honour expectations), not with Node's bare 417.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    void listener(request, response);
  });
  // Malformed HTTP (a bad request line, a header Node refuses, headers over
  // its size limit) never reaches a handler: answer it in the house shape
  // too, instead of Node's bare 400, then close.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (error as { code?: string }).code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      errorBody(
        new ApiError(ErrorCode.VALIDATION_FAILED, tooLarge ? 'The request headers are too large.' : 'The request is not well-formed HTTP/1.1.'),
        requestId,
      ),
    );
    socket.end(
      [
        `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `x-amzn-RequestId: ${requestId}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.removeListener('error', reject);
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        port,
        url: `http://${urlHost}:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
