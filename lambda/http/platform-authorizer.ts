/**
 * The platform authorizer's decision: the same verification as the verify
 * endpoint (`checkKey` + `useCheckedKey`; the use sent with the read for a
 * value seen valid, verification/early-write.ts), answered as an IAM policy over the
 * route → scope table. The Lambda entry is lambda/handlers/authorizer.ts;
 * the policy's design (cacheable per key, Allow/Deny per mapped route) is
 * described there and in docs/verification.md.
 */
import { valueUsed } from '../domain/value-used';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Statement } from 'aws-lambda';
import type { RouteScope } from '../contract/route-scopes';
import { uncoveredScopes } from '../contract/scopes';
import { header } from './headers';
import type { TeamStore } from '../store/team-store';
import type { GuessCounterStore } from '../store/guess-counter-store';
import type { ServiceSettings } from '../platform/service-settings';
import { presentedValue } from './authentication';
import { UNAUTHORIZED } from './management-authorizer';
import type { TeamItem } from '../domain/model';
import { withEarlyWrite } from '../verification/early-write';
import { checkKey, failureOf, ownerOf, presentedHash, VerifyFailure, type CheckedKey, type VerifyResult, type VerifyServices } from '../verification/verify';
import { countVerification } from '../verification/counting';
import type { CountsPort, IdentitiesPort } from '../store/ports';
import { verifiedIdentityOf, type VerifiedIdentity } from '../use-cases/verified-identity';
import type { RateLimitState } from '../domain/rate-window';
import type { MeterFigures } from '../domain/recording';
import type { VerifiedKey } from '../domain/model';

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

/**
 * The `Verifications` code of an authorizer answer: VALID for an Allow of
 * this route, the Deny's code, the refusal behind a 401 (its `cause`), or
 * ERROR for an unexpected failure.
 */
export function outcomeCodeOf(response: APIGatewayAuthorizerResult | null | undefined, error: unknown): string {
  if (response) {
    const code = response.context?.code;
    return typeof code === 'string' && code !== '' ? code : 'VALID';
  }
  if (error instanceof Error && error.message === UNAUTHORIZED) return typeof error.cause === 'string' ? error.cause : 'UNAUTHORIZED';
  return 'ERROR';
}

/** What the platform authorizer reads: verification's stores, the guess counters and the teams. */
export type PlatformAuthorizerPorts = VerifyServices &
  IdentitiesPort &
  Partial<CountsPort> & {
    readonly guesses: GuessCounterStore;
    readonly teams: TeamStore;
    readonly settings: Pick<ServiceSettings, 'pepper' | 'guessLimitPerMinute'>;
  };

/** The context of an allowed request: scalars only, as API Gateway requires. */
function allowedContext(key: VerifiedKey, ratelimit: RateLimitState, identity: VerifiedIdentity | undefined): Record<string, string | number> {
  return {
    key_id: key.id,
    team_id: key.team_id,
    scopes: key.scopes.join(','),
    key_type: key.type,
    environment: key.environment,
    ratelimit_limit: ratelimit.limit,
    ratelimit_remaining: ratelimit.remaining,
    ratelimit_reset: ratelimit.reset,
    // Which value was presented: `current`, or `old` with `old_value_ends_at` (docs/verification.md).
    ...valueUsed(key),
    // A key of an identity: which customer calls (its meta, an object, is answered by the verify endpoint only).
    ...(identity ? { identity_id: identity.id, identity_external_id: identity.external_id } : {}),
  };
}

/**
 * A metered answer's figures, flattened to the scalars a context may hold:
 * `credits_remaining`, and per named limit `limit_<owner>_<name>_limit`,
 * `_remaining` and `_reset` (epoch seconds).
 */
export function meterContext(meters: MeterFigures | undefined): Record<string, number> {
  if (!meters) return {};
  const context: Record<string, number> = {};
  if (meters.credits) context.credits_remaining = meters.credits.remaining;
  for (const limit of meters.limits) {
    const prefix = `limit_${limit.owner}_${limit.name}`;
    context[`${prefix}_limit`] = limit.limit;
    context[`${prefix}_remaining`] = limit.remaining;
    context[`${prefix}_reset`] = limit.reset;
  }
  return context;
}

/** The policy's statements: every route the key's scopes cover allowed, the others denied (no routes: the whole stage allowed). */
function statementsFor(routes: readonly RouteScope[], stageArn: string, covers: (route: RouteScope) => boolean): Statement[] {
  if (routes.length === 0) return [statement('Allow', [`${stageArn}*/*`])];
  const allowed = routes.filter(covers).map((route) => stageArn + route.resource);
  const denied = routes.filter((route) => !covers(route)).map((route) => stageArn + route.resource);
  return [...(allowed.length > 0 ? [statement('Allow', allowed)] : []), ...(denied.length > 0 ? [statement('Deny', denied)] : [])];
}

/** A valid key refused for the scopes of the routes matched, as counted. */
const scopeDenied = (key: VerifiedKey): VerifyResult => ({
  valid: false,
  code: VerifyFailure.SCOPE_DENIED,
  keyId: key.id,
  owner: ownerOf(key),
});

export async function authorize(
  deps: PlatformAuthorizerPorts,
  routes: readonly RouteScope[],
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const { stageArn, resource } = splitMethodArn(event.methodArn);
  const value = presentedValue(event);
  // API Gateway turns exactly this message into 401.
  if (value === undefined) throw new Error(UNAUTHORIZED, { cause: 'MISSING_KEY' });

  const now = deps.clock.now();
  const matching = routes.filter((route) => route.pattern.test(resource));
  const request = {
    value,
    sourceIp: event.requestContext?.identity?.sourceIp,
    origin: header(event, 'origin'),
    referer: header(event, 'referer'),
    // Metered as the verify endpoint meters (docs/limits.md): the route's cost, the most of the entries it matches (default 1).
    cost: matching.length > 0 ? Math.max(...matching.map((route) => route.cost ?? 1)) : 1,
  };
  const covered = (scopes: readonly string[]) => (route: RouteScope) => uncoveredScopes(scopes, [route.scope]).length === 0;
  const allowedHere = (scopes: readonly string[]) => routes.length === 0 || (matching.length > 0 && matching.every(covered(scopes)));

  // A value this process has seen valid for this route: its recording write and its team's read go out with the
  // value's read (one round trip instead of three); the value's read still decides (see early-write.ts).
  const valueHash = presentedHash(deps, request.value);
  let teamAhead: { readonly teamId: string; readonly read: Promise<TeamItem | undefined> } | undefined;
  const readValue = (predicted: CheckedKey | undefined) => {
    if (predicted) {
      teamAhead = { teamId: predicted.key.team_id, read: deps.teams.getTeam(predicted.key.team_id) };
      teamAhead.read.catch(() => undefined);
    }
    return checkKey(deps, request, { valueHash });
  };
  const wanted = (predicted: CheckedKey) => allowedHere(predicted.key.scopes);
  // Counted as the verify endpoint counts (docs/analytics.md), with the scopes of the routes the request matches.
  const asked = matching.map((route) => route.scope);
  return withEarlyWrite(deps, request, { at: now, valueHash, wanted }, readValue, async ({ check, admit }) => {
    if (!check.valid) {
      countVerification(deps, failureOf(check), asked);
      if (check.code === VerifyFailure.IP_NOT_ALLOWED || check.code === VerifyFailure.ORIGIN_NOT_ALLOWED) {
        return denyAll(check.keyId ?? 'unknown', stageArn, check.code);
      }
      throw new Error(UNAUTHORIZED, { cause: check.code });
    }

    const { key } = check.checked;
    const statements = statementsFor(routes, stageArn, covered(key.scopes));
    if (!allowedHere(key.scopes)) {
      if (matching.length > 0) countVerification(deps, scopeDenied(key), asked);
      return { ...policy(key.id, statements), context: { code: matching.length === 0 ? 'ROUTE_NOT_MAPPED' : VerifyFailure.SCOPE_DENIED } };
    }

    // The scopes the route needs are the ones its call asks: a named limit bound to a scope counts the routes that need it.
    const result = await admit({ ...check.checked, asked: { scopes: asked, cost: request.cost } });
    countVerification(deps, result, asked);
    if (result.code === VerifyFailure.RATE_LIMITED) {
      return denyAll(key.id, stageArn, result.code, {
        retry_after: result.meters?.retryAfterSeconds ?? result.ratelimit.retryAfterSeconds ?? 1,
        ...meterContext(result.meters),
      });
    }
    if (result.code === VerifyFailure.USAGE_EXCEEDED) return denyAll(key.id, stageArn, result.code, meterContext(result.meters));
    if (!result.valid) throw new Error(UNAUTHORIZED, { cause: result.code });
    // The team's API Gateway key: a platform API with apiKeySource AUTHORIZER gets per-team plans; the key's identity, read beside it.
    const [team, identity] = await Promise.all([
      teamAhead?.teamId === key.team_id ? teamAhead.read : deps.teams.getTeam(key.team_id),
      verifiedIdentityOf(deps, key),
    ]);
    return {
      ...policy(key.id, statements),
      context: { ...allowedContext(key, result.ratelimit, identity), ...meterContext(result.meters) },
      ...(team ? { usageIdentifierKey: team.usage_key } : {}),
    };
  });
}
