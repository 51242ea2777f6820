/**
 * POST /functions/v1/verify-api-key — tells a platform service (or a browser
 * page holding a public key) whether a key value may be used, and records
 * the use. Every definitive answer is 200 with `valid` and a `code`; 400 is
 * for a malformed body; 429 for a source that verified too many unknown
 * values (see guess-limiter.ts). The value is never logged.
 *
 * CORS (see docs/verification.md):
 * - Preflight (OPTIONS) carries no key, so it cannot be decided per key: it
 *   is answered permissively for POST with `Content-Type`/`Authorization`
 *   from any http(s) Origin. It only lets the browser send the request.
 * - The answer carries `Access-Control-Allow-Origin` (the exact Origin, with
 *   `Vary: Origin`) only when the key is a public key whose domains allow
 *   that Origin. Elsewhere the browser sends the request but refuses to let
 *   the page read the answer; the verification itself fails with
 *   ORIGIN_NOT_ALLOWED, so no use is recorded for a foreign page.
 */
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, ErrorCode } from '../../contract/errors';
import type { ManagementEvent } from '../../http/event';
import { header } from '../../http/headers';
import { errorResponses, jsonBody } from '../../http/middleware';
import { jsonResponse } from '../../contract/response';
import { verifyWithGuessLimit } from '../../verification/guess-limiter';
import { preflight, varyOnOrigin } from '../../http/cors';
import { eitherPayload } from '../../http/payload-v2';
import { verifyKeyRequestSchema, type VerifyKeyRequest, type VerifyKeyResponse } from './schema';
import type { VerifyResult } from '../../verification/verify';
import { rateLimitHeaders } from '../../domain/rate-window';
import { apiRoute, observedApi } from '../../platform/observed';
import { signals } from '../../platform/observability';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';
import { route } from './route';
import { verifiedIdentityOf, type VerifiedIdentity } from '../../use-cases/verified-identity';
import { countVerification } from '../../verification/counting';
import { valueUsed } from '../../domain/value-used';

/** The verify event; `verificationCode` is what the request was counted as (set once the verdict is known). */
type VerifyEvent = ManagementEvent<VerifyKeyRequest> & { verificationCode?: string };
type AnyEvent = ManagementEvent<unknown>;

/** The answer's body: `valid`, `code`, the key's public facts, the rate-limit state, the key's identity. Never the value. */
function verifyResponseBody(result: VerifyResult, identity: VerifiedIdentity | undefined): VerifyKeyResponse {
  const body: VerifyKeyResponse = { valid: result.valid, code: result.code };
  if (result.valid) {
    const { id, team_id, type, environment, scopes } = result.key;
    body.key = { id, team_id, type, environment, scopes, ...valueUsed(result.key) };
  }
  if ('ratelimit' in result) {
    const { limit, remaining, reset } = result.ratelimit;
    body.ratelimit = { limit, remaining, reset };
  }
  if (identity) body.identity = identity;
  if ('meters' in result && result.meters) {
    if (result.meters.limits.length > 0)
      body.limits = result.meters.limits.map(({ name, owner, limit, remaining, reset }) => ({ name, owner, limit, remaining, reset }));
    if (result.meters.credits) body.credits = result.meters.credits;
  }
  return body;
}

/** The answer's headers: `Retry-After`, the per-key CORS answer, the key's RateLimit headers. */
function verifyResponseHeaders(result: VerifyResult, now: Date): Record<string, string> {
  // A use counted against the key's limit: its RateLimit headers, as on the management routes.
  const headers: Record<string, string> =
    'ratelimit' in result ? rateLimitHeaders(result.ratelimit, now, 'meters' in result ? result.meters?.limits : undefined) : {};
  if (result.code === 'RATE_LIMITED') headers['Retry-After'] = String(result.meters?.retryAfterSeconds ?? result.ratelimit.retryAfterSeconds ?? 1);
  if (result.allowedOrigin !== undefined) {
    headers['Access-Control-Allow-Origin'] = result.allowedOrigin;
    headers['Access-Control-Expose-Headers'] = 'Retry-After, X-Request-Id, RateLimit, RateLimit-Policy';
  }
  return headers;
}

async function verifyApiKey(services: PortsOf<typeof route>, event: VerifyEvent): Promise<APIGatewayProxyResult> {
  const outcome = await verifyWithGuessLimit(services, {
    value: event.input.key,
    scope: event.input.scope,
    sourceIp: event.meta.sourceIp ?? undefined,
    origin: header(event, 'origin'),
    referer: header(event, 'referer'),
    cost: event.input.cost ?? 1,
  });
  if (outcome.kind === 'too-many-guesses') {
    signals.guessLimiterTrip(services.observe);
    event.verificationCode = 'GUESS_LIMITED';
    throw new ApiError(ErrorCode.RATE_LIMITED, 'Too many verifications of unknown keys from this address. Retry later.', [], {
      'Retry-After': String(outcome.retryAfterSeconds),
    });
  }
  event.verificationCode = outcome.result.code;
  countVerification(services, outcome.result, event.input.scope === undefined ? undefined : [event.input.scope].flat());
  const identity = outcome.result.valid ? await verifiedIdentityOf(services, outcome.result.key) : undefined;
  return jsonResponse(200, verifyResponseBody(outcome.result, identity), event.meta.requestId, verifyResponseHeaders(outcome.result, services.clock.now()));
}

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  middy<AnyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    // The REST API's payload 1.0, or 2.0 from an HTTP API or a function URL (context verifyFrontDoor).
    .use(eitherPayload())
    .use(
      observedApi<AnyEvent, APIGatewayProxyResult>(services, {
        route: apiRoute,
        answerLine: 'DEBUG',
        // One count per request: the verdict, or for a request refused before verification (400, 413, 415, 500) its error code.
        settle: (o, request) =>
          signals.verification(
            o,
            (request.event as Partial<VerifyEvent>).verificationCode ?? (request.error instanceof ApiError ? request.error.code : ErrorCode.INTERNAL),
          ),
      }),
    )
    .use(varyOnOrigin())
    .use(errorResponses(() => services().observe))
    .use(preflight())
    .use(jsonBody(() => verifyKeyRequestSchema))
    .handler((event) => verifyApiKey(services(), event as VerifyEvent));

export const handler = makeHandler(functionServices(route));
