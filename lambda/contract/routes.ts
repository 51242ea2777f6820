/**
 * The HTTP routes of the service, in one place: the CDK API and the local
 * server both build from this list, so a path cannot differ between them.
 * `handler` is the file name under `lambda/handlers/` (without `.ts`), which
 * exports `handler`.
 */
import path from 'node:path';

export interface RouteDefinition {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly handler: string;
  /** A management route: a Bearer `sk` key holding `keys.manage`, the management throttle. */
  readonly management: boolean;
  /** Where the input is: a JSON body, or the query string (GET). */
  readonly input: 'body' | 'query';
  /** The handler answers the path's CORS preflight (OPTIONS) itself. Default: no OPTIONS on the path (405). */
  readonly preflight?: boolean;
}

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'POST', path: '/functions/v1/generate-api-key', handler: 'generate-api-key', management: true, input: 'body' },
  { method: 'POST', path: '/functions/v1/regenerate-api-key', handler: 'regenerate-api-key', management: true, input: 'body' },
  { method: 'DELETE', path: '/functions/v1/delete-api-key', handler: 'delete-api-key', management: true, input: 'body' },
  { method: 'GET', path: '/functions/v1/list-api-keys', handler: 'list-api-keys', management: true, input: 'query' },
  { method: 'GET', path: '/functions/v1/get-api-key', handler: 'get-api-key', management: true, input: 'query' },
  { method: 'PATCH', path: '/functions/v1/update-api-key', handler: 'update-api-key', management: true, input: 'body' },
  { method: 'GET', path: '/functions/v1/get-api-key-usage', handler: 'get-api-key-usage', management: true, input: 'query' },
  { method: 'GET', path: '/functions/v1/list-audit-events', handler: 'list-audit-events', management: true, input: 'query' },
  { method: 'POST', path: '/functions/v1/verify-api-key', handler: 'verify-api-key', management: false, input: 'body', preflight: true },
];

/** The methods a path answers (OPTIONS where its route answers the preflight), in ROUTES order: the `Allow` of a 405. */
export function allowedMethods(routes: readonly { method: string; path: string; preflight?: boolean }[], path: string): string[] {
  const onPath = routes.filter((route) => route.path === path);
  return [...new Set([...onPath.map((route) => route.method), ...(onPath.some((route) => route.preflight) ? ['OPTIONS'] : [])])];
}

/** Handler names of the management routes. */
export const MANAGEMENT_HANDLERS: readonly string[] = ROUTES.filter((route) => route.management).map((route) => route.handler);

/** Largest request body accepted, in bytes (bigger bodies get 413). */
export const MAX_BODY_BYTES = 16 * 1024;

/** Folder of the Lambda entry points, one file per handler: the CDK bundles them, the local server imports them. */
export const HANDLERS_DIR = path.resolve(__dirname, '..', 'handlers');

/** Folder of the route folders, one per route (`lambda/routes/<route>/handler.ts`). */
export const ROUTES_DIR = path.resolve(__dirname, '..', 'routes');

/** Entry file of a function named as in `ROUTES` (`generate-api-key` → `lambda/routes/generate-api-key/handler.ts`), or of another handler. */
export function handlerEntry(handlerName: string): string {
  return ROUTES.some((route) => route.handler === handlerName)
    ? path.join(ROUTES_DIR, handlerName, 'handler.ts')
    : path.join(HANDLERS_DIR, `${handlerName}.ts`);
}
