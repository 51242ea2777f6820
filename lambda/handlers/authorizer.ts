/**
 * Lambda REQUEST authorizer for the platform's own REST APIs: the same
 * verification as the verify route (`checkKey` +
 * `admitUse`), answered as an IAM policy. See docs/verification.md.
 *
 * Key: `Authorization: Bearer <value>`, else `x-api-key: <value>`.
 *
 * Route scopes (read once, at cold start; an invalid setting fails it):
 * - `AUTHORIZER_SCOPE`: a scope every route needs (optional).
 * - `AUTHORIZER_ROUTE_SCOPES`: JSON `{"<METHOD> <path>": "<scope>"}`, e.g.
 *   `{"GET /tiles/*": "enc.tiles:read"}`. METHOD may be `*`; `*` in the path
 *   matches any characters, `/` included (IAM resource semantics). A route
 *   needs the scope of every entry it matches; a route matching none is
 *   denied (fail closed).
 * With neither, any valid key is allowed everywhere.
 *
 * The policy is written so that API Gateway may cache it per key: it does
 * not cover just this method but lists every mapped route of the stage,
 * Allow where the key holds the scope and Deny where it does not. A cached
 * answer therefore stays right for every route; what caching does change is
 * that revocation, rate limits and usage only see cache misses (the cache
 * TTL is the revocation delay).
 *
 * Outcomes: unknown, expired, revoked or inactive key, or no key → throws
 * `Unauthorized` (API Gateway answers 401). IP or origin refused, over the
 * key's rate limit → Deny for the whole stage (403). Scope missing → the
 * policy above (403 for this route). Allowed → `principalId` and
 * `usageIdentifierKey` = the key id, context `{key_id, team_id, scopes
 * (comma-joined), key_type, environment, ratelimit_*}`.
 */
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { parseRouteScope, parseRouteScopeTable, type RouteScope } from '../contract/route-scopes';
import { authorize } from '../http/platform-authorizer';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import { signals } from '../platform/observability';
import { observedApi } from '../platform/observed';
import { outcomeCodeOf } from '../http/platform-authorizer';
import { optionalSetting } from '../platform/environment';

/** The route → scope table from the environment (grammar: lambda/contract/route-scopes.ts). */
export function routeScopesFromEnv(env?: NodeJS.ProcessEnv): RouteScope[] {
  const routes: RouteScope[] = [];
  const everywhere = optionalSetting('AUTHORIZER_SCOPE', env);
  if (everywhere !== undefined) {
    const entry = parseRouteScope('* /*', everywhere);
    if (typeof entry === 'string') throw new Error(`AUTHORIZER_SCOPE: ${entry}`);
    routes.push(entry);
  }
  const table = optionalSetting('AUTHORIZER_ROUTE_SCOPES', env);
  if (table !== undefined) {
    const read = parseRouteScopeTable(table);
    if (read.kind === 'not-a-table') throw new Error(`AUTHORIZER_ROUTE_SCOPES ${read.problem}`);
    if (read.problems.length > 0) throw new Error(`AUTHORIZER_ROUTE_SCOPES: ${read.problems.join('; ')}`);
    routes.push(...read.routes);
  }
  return routes;
}

/** An authorizer with the given route table (read on first use). */
export function authorizerWith(routeTable: () => readonly RouteScope[], services: () => HandlerPorts<'authorizer'> = handlerServices('authorizer')) {
  let routes: readonly RouteScope[] | undefined;
  return middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>({ timeoutEarlyInMillis: 0 })
    .use(
      observedApi<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>(services, {
        route: () => 'authorizer',
        settle: (o, request) => signals.verification(o, outcomeCodeOf(request.response, request.error)),
      }),
    )
    .handler((event) => {
      routes ??= routeTable();
      return authorize(services(), routes, event);
    });
}

export const handler = authorizerWith(() => routeScopesFromEnv());
