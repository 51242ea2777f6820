/**
 * Lambda REQUEST authorizer for the platform's own REST APIs: the same
 * verification as POST /functions/v1/verify-api-key (`checkKey` +
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
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Statement } from 'aws-lambda';
import { presentedValue } from '../shared/auth/authorization';
import { header } from '../shared/http/headers';
import { environmentServices, type Services } from '../shared/platform/services';
import { parseRouteScope, parseRouteScopeTable, type RouteScope } from '../contract/route-scopes';
import { uncoveredScopes } from '../contract/scopes';
import { checkKey, useCheckedKey, VerifyFailure } from '../shared/auth/verify';

/** The route → scope table from the environment (grammar: lambda/contract/route-scopes.ts). */
export function routeScopesFromEnv(env: NodeJS.ProcessEnv = process.env): RouteScope[] {
  const routes: RouteScope[] = [];
  const everywhere = env.AUTHORIZER_SCOPE;
  if (everywhere !== undefined && everywhere !== '') {
    const entry = parseRouteScope('* /*', everywhere);
    if (typeof entry === 'string') throw new Error(`AUTHORIZER_SCOPE: ${entry}`);
    routes.push(entry);
  }
  const table = env.AUTHORIZER_ROUTE_SCOPES;
  if (table !== undefined && table !== '') {
    const read = parseRouteScopeTable(table);
    if (read.kind === 'not-a-table') throw new Error(`AUTHORIZER_ROUTE_SCOPES ${read.problem}`);
    if (read.problems.length > 0) throw new Error(`AUTHORIZER_ROUTE_SCOPES: ${read.problems.join('; ')}`);
    routes.push(...read.routes);
  }
  return routes;
}

/** `arn:aws:execute-api:<region>:<account>:<api>/<stage>/` and `METHOD/path` of a method ARN. */
function splitMethodArn(methodArn: string): { stageArn: string; resource: string } {
  const [api, stage, ...rest] = methodArn.split('/');
  if (!api.startsWith('arn:') || stage === undefined || rest.length === 0) throw new Error('Unexpected methodArn');
  return { stageArn: `${api}/${stage}/`, resource: rest.join('/') };
}

function policy(principalId: string, statements: Statement[]): APIGatewayAuthorizerResult {
  return { principalId, policyDocument: { Version: '2012-10-17', Statement: statements } };
}

function statement(effect: 'Allow' | 'Deny', resources: string[]): Statement {
  return { Action: 'execute-api:Invoke', Effect: effect, Resource: resources };
}

function denyAll(principalId: string, stageArn: string, code: string, extra: Record<string, string | number> = {}): APIGatewayAuthorizerResult {
  return { ...policy(principalId, [statement('Deny', [`${stageArn}*/*`])]), context: { code, ...extra } };
}

async function authorize(
  deps: Services,
  routes: readonly RouteScope[],
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const { stageArn, resource } = splitMethodArn(event.methodArn);
  const value = presentedValue(event);
  // API Gateway turns exactly this message into 401.
  if (value === undefined) throw new Error('Unauthorized');

  const check = await checkKey(deps, {
    value,
    sourceIp: event.requestContext?.identity?.sourceIp,
    origin: header(event, 'origin'),
    referer: header(event, 'referer'),
  });
  if (!check.valid) {
    if (check.code === VerifyFailure.IP_NOT_ALLOWED || check.code === VerifyFailure.ORIGIN_NOT_ALLOWED) {
      return denyAll(check.keyId ?? 'unknown', stageArn, check.code);
    }
    throw new Error('Unauthorized');
  }

  const { key } = check.checked;
  const matching = routes.filter((route) => route.pattern.test(resource));
  const covered = (route: RouteScope) => uncoveredScopes(key.scopes, [route.scope]).length === 0;
  const statements: Statement[] = [];
  if (routes.length === 0) {
    statements.push(statement('Allow', [`${stageArn}*/*`]));
  } else {
    const allowed = routes.filter(covered).map((route) => stageArn + route.resource);
    const denied = routes.filter((route) => !covered(route)).map((route) => stageArn + route.resource);
    if (allowed.length > 0) statements.push(statement('Allow', allowed));
    if (denied.length > 0) statements.push(statement('Deny', denied));
  }
  const allowedHere = routes.length === 0 || (matching.length > 0 && matching.every(covered));
  if (!allowedHere) {
    return { ...policy(key.id, statements), context: { code: matching.length === 0 ? 'ROUTE_NOT_MAPPED' : VerifyFailure.SCOPE_DENIED } };
  }

  const result = await useCheckedKey(deps, check.checked);
  if (result.code === VerifyFailure.RATE_LIMITED) {
    return denyAll(key.id, stageArn, result.code, { retry_after: result.ratelimit.retryAfterSeconds ?? 1 });
  }
  if (!result.valid) throw new Error('Unauthorized');
  return {
    ...policy(key.id, statements),
    context: {
      key_id: key.id,
      team_id: key.team_id,
      scopes: key.scopes.join(','),
      key_type: key.type,
      environment: key.environment,
      ratelimit_limit: result.ratelimit.limit,
      ratelimit_remaining: result.ratelimit.remaining,
      ratelimit_reset: result.ratelimit.reset,
    },
    usageIdentifierKey: key.id,
  };
}

/** An authorizer with the given route table (read on first use). */
export function authorizerWith(routeTable: () => readonly RouteScope[], services: () => Services = environmentServices) {
  let routes: readonly RouteScope[] | undefined;
  return middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>({ timeoutEarlyInMillis: 0 }).handler((event) => {
    routes ??= routeTable();
    return authorize(services(), routes, event);
  });
}

export const handler = authorizerWith(() => routeScopesFromEnv());
