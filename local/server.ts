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
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, ErrorCode, errorBody, internalErrorBody } from '../lambda/contract/errors';
import type { Logger } from '@aws-lambda-powertools/logger';
import { terminalObservability } from './terminal-observability';
import type { PageSource } from './pages';
import { PLATFORM_PREFIX, type PlatformAnswer, type PlatformRequest } from './platform-stage';
import { MAX_BODY_BYTES } from '../lambda/contract/routes';
import { ROUTES } from '../lambda/routes';
import { THROTTLED_MESSAGE } from '../lambda/contract/defaults';
import { TokenBucket } from './token-bucket';
import { headersOf, lambdaContext, sourceIpOf, toProxyEvent, type LocalRoute } from './proxy-event';
import { moduleHandlerLoader, resolveRoute, unresolvedReply, type HandlerLoader } from './route-handlers';
import { errorField } from '../lambda/platform/observability';
import { GATEWAY_MADE, apiErrorReply, errorReply, isProxyResult, readBody, resultReply, send, withGatewayCors, type Reply } from './replies';

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
  const listener: Listener = {
    options,
    routes: options.routes ?? ROUTES,
    log: options.logger ?? terminalObservability().logger,
    loadHandler: options.loadHandler ?? moduleHandlerLoader(),
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    methodBuckets: new Map<string, TokenBucket>(),
  };
  return async (request, response) => {
    const requestId = randomUUID();
    const receivedAt = new Date();
    let reply: Reply;
    try {
      reply = withGatewayCors(await answer(listener, request, requestId, receivedAt));
    } catch (error) {
      // Whatever a handler throws stays in the log; the caller gets the generic body.
      listener.log.error('handler failed', { request_id: requestId, ...errorField(error) });
      reply = errorReply(500, internalErrorBody(requestId), requestId);
    }
    if (!request.complete) {
      // The body was refused unread: drop it and the connection after replying.
      response.shouldKeepAlive = false;
      response.once('finish', () => request.destroy());
    }
    send(response, reply, requestId);
    logAccess(listener, request, reply.status, requestId, receivedAt);
  };
}

/** What a request listener holds: its options, routes, log, handler loader, body limit and per-method throttles. */
interface Listener {
  readonly options: Omit<LocalServerOptions, 'port' | 'host'>;
  readonly routes: readonly LocalRoute[];
  readonly log: Logger;
  readonly loadHandler: HandlerLoader;
  readonly maxBodyBytes: number;
  readonly methodBuckets: Map<string, TokenBucket>;
}

/** The reply to one request: a page, the platform stage, a refusal of the route or its method, or the route's handler. */
async function answer(listener: Listener, request: IncomingMessage, requestId: string, receivedAt: Date): Promise<Reply> {
  const { options, log } = listener;
  // Prefixing a fixed origin keeps a target such as `//x` a path, not a host.
  const target = request.url ?? '/';
  const url = new URL(`http://localhost${target.startsWith('/') ? target : `/${target}`}`);
  const method = request.method ?? 'GET';
  if (options.pages && (method === 'GET' || method === 'HEAD')) {
    const page = options.pages(url.pathname);
    if (page) return page;
  }
  if (options.platform && isPlatformPath(url.pathname)) {
    const platform = await options.platform({
      method,
      path: url.pathname.slice(PLATFORM_PREFIX.length),
      ...headersOf(request.rawHeaders),
      sourceIp: sourceIpOf(request.socket.remoteAddress),
      requestId,
    });
    return { status: platform.status, headers: platform.headers, body: platform.body };
  }
  const resolution = resolveRoute(listener.routes, method, url.pathname);
  if (resolution.kind !== 'matched') return unresolvedReply(resolution, method, url.pathname, requestId);
  const { route } = resolution;
  const throttled = route.methodThrottle ? throttle(listener, `${route.method} ${route.path}`, route.methodThrottle, receivedAt, requestId) : undefined;
  if (throttled) return throttled;
  const bodyLimit = route.maxBodyBytes ?? listener.maxBodyBytes;
  const read = await readBody(request, bodyLimit);
  if (read.aborted) {
    // Nobody is left to read the answer; the access line says what happened (a client error, not ours).
    log.info('request body cut short by the client', { request_id: requestId });
    return apiErrorReply(new ApiError(ErrorCode.VALIDATION_FAILED, 'The request body ended before it was complete.'), requestId);
  }
  if (read.tooLarge) {
    return apiErrorReply(new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body exceeds ${bodyLimit} bytes.`, [], { Connection: 'close' }), requestId);
  }
  const handler = await listener.loadHandler(route);
  if (!handler) {
    log.error('handler not implemented', { request_id: requestId, handler: route.name });
    return errorReply(500, internalErrorBody(requestId), requestId);
  }
  const { host } = request.headers;
  const event = toProxyEvent(
    { method, url, host, rawHeaders: request.rawHeaders, remoteAddress: request.socket.remoteAddress, body: read.body, requestId, receivedAt },
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

/** The route's method throttle (API Gateway's per-method setting): a 429 with Retry-After when its bucket is empty. */
function throttle(
  listener: Listener,
  bucketKey: string,
  limits: ConstructorParameters<typeof TokenBucket>[0],
  receivedAt: Date,
  requestId: string,
): Reply | undefined {
  const bucket = listener.methodBuckets.get(bucketKey) ?? new TokenBucket(limits, receivedAt.getTime());
  listener.methodBuckets.set(bucketKey, bucket);
  const taken = bucket.take(receivedAt.getTime());
  if (taken.admitted) return undefined;
  return apiErrorReply(new ApiError(ErrorCode.THROTTLED, THROTTLED_MESSAGE, [], { 'Retry-After': String(taken.retryAfterSeconds) }), requestId);
}

/** The access line: a route's or page's path as is, a platform path by its resource, anything else as `unknown` with its length. */
function logAccess(listener: Listener, request: IncomingMessage, status: number, requestId: string, receivedAt: Date): void {
  const { options, routes } = listener;
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
    status,
    duration_ms: Date.now() - receivedAt.getTime(),
    request_id: requestId,
  });
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
  // Idle connections stay a minute, not Node's 5 s: a client reusing one as the server closed it got "other side closed"
  // on a loaded machine (the client e2e test). API Gateway keeps them 350 s.
  server.keepAliveTimeout = 61_000;
  server.headersTimeout = 62_000;
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
