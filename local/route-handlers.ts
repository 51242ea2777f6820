/**
 * How the local server finds a route and its handler: the route a method and
 * path resolve to (or the methods the path allows), and the handler module
 * of a route, imported on first use and made with the runtime's services,
 * each route seeing exactly its declared ports.
 */
import { existsSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { allowedMethods } from '../lambda/contract/routes';
import { functionEntry } from '../lambda/routes';
import { portsOf, type Services } from '../lambda/composition/services';
import type { PortName } from '../lambda/contract/ports';
import { PORT_NAMES } from '../lambda/contract/port-names';
import type { LocalRoute } from './proxy-event';
import { ApiError, ErrorCode } from '../lambda/contract/errors';
import { apiErrorReply, type Reply } from './replies';

/** A Lambda proxy handler as the handler modules export it. */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult | undefined | void>;

/** Loads the handler of a route; undefined when its module does not exist (yet). */
export type HandlerLoader = (route: LocalRoute) => Promise<ProxyHandler | undefined>;

export type { LocalRoute };

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
    type HandlerModule = { handler?: unknown; makeHandler?: (services: () => unknown) => unknown };
    const imported = (await import(file)) as HandlerModule & { default?: HandlerModule };
    const makeHandler = imported.makeHandler ?? imported.default?.makeHandler;
    // The local runtime's own services (its engine, clock, scheduler), never the environment's.
    // Each route sees exactly its declared ports, as its Lambda bundle does.
    const ports = 'ports' in route ? (route.ports as readonly PortName[]) : PORT_NAMES;
    const handler = services && makeHandler ? makeHandler(() => portsOf(services(), ports)) : (imported.handler ?? imported.default?.handler);
    if (typeof handler !== 'function') throw new Error(`${file} does not export a handler function`);
    loaded.set(route.name, handler as ProxyHandler);
    return handler as ProxyHandler;
  };
}

/** No route at the path (404), or not with this method (405 with Allow). */
export function unresolvedReply(
  resolution: Exclude<ReturnType<typeof resolveRoute>, { kind: 'matched' }>,
  method: string,
  pathname: string,
  requestId: string,
): Reply {
  if (resolution.kind === 'not-found') return apiErrorReply(new ApiError(ErrorCode.ROUTE_NOT_FOUND, `No route for ${pathname}.`), requestId);
  const allow = resolution.allow.join(', ');
  return apiErrorReply(
    new ApiError(ErrorCode.METHOD_NOT_ALLOWED, `${method.toUpperCase()} is not allowed on ${pathname}; use ${allow}.`, [], { Allow: allow }),
    requestId,
  );
}
