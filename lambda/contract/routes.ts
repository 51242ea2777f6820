/**
 * The HTTP routes of the service, in one place: the CDK API and the local
 * server both build from this list, so a path cannot differ between them.
 * `handler` is the file name under `lambda/handlers/` (without `.ts`), which
 * exports `handler`.
 */
import path from 'node:path';

export interface RouteDefinition {
  readonly method: 'POST' | 'DELETE';
  readonly path: string;
  readonly handler: string;
}

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'POST', path: '/functions/v1/generate-api-key', handler: 'generate-api-key' },
  { method: 'POST', path: '/functions/v1/regenerate-api-key', handler: 'regenerate-api-key' },
  { method: 'DELETE', path: '/functions/v1/delete-api-key', handler: 'delete-api-key' },
  { method: 'POST', path: '/functions/v1/verify-api-key', handler: 'verify-api-key' },
];

/** Largest request body accepted, in bytes (bigger bodies get 413). */
export const MAX_BODY_BYTES = 16 * 1024;

/** Folder of the Lambda entry points, one file per handler: the CDK bundles them, the local server imports them. */
export const HANDLERS_DIR = path.resolve(__dirname, '..', 'handlers');

/** Entry file of a handler named as in `ROUTES` (`generate-api-key` → `lambda/handlers/generate-api-key.ts`). */
export function handlerEntry(handlerName: string): string {
  return path.join(HANDLERS_DIR, `${handlerName}.ts`);
}
