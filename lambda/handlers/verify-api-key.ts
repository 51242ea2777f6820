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
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, ErrorCode } from '../contract/errors';
import type { ManagementEvent } from '../shared/http/event';
import { header } from '../shared/http/headers';
import { errorResponses, jsonBody } from '../shared/http/middleware';
import { jsonResponse } from '../contract/response';
import { originOf } from '../shared/keys/domains';
import { verifyWithGuessLimit } from '../shared/usage/guess-limiter';
import { environmentServices, type Services } from '../shared/platform/services';
import { verifyKeyRequestSchema, type VerifyKeyRequest, type VerifyKeyResponse } from '../shared/http/schemas/verify-key';
import type { VerifyResult } from '../shared/auth/verify';

type VerifyEvent = ManagementEvent<VerifyKeyRequest>;
type AnyEvent = ManagementEvent<unknown>;

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const ALLOWED_REQUEST_HEADERS = ['content-type', 'authorization'];

/** Adds `Vary: Origin` to every response: whether it carries CORS headers depends on the Origin. */
function varyOnOrigin(): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  const add = (request: Request<AnyEvent, APIGatewayProxyResult>) => {
    if (request.response) request.response.headers = { ...request.response.headers, Vary: 'Origin' };
  };
  return { name: 'varyOnOrigin', after: add, onError: add };
}

/** The preflight answer: permissive for POST with JSON (see the module comment). */
function preflightResponse(event: AnyEvent): APIGatewayProxyResult {
  const headers: Record<string, string> = { Vary: 'Origin', 'Cache-Control': 'no-store' };
  const origin = header(event, 'origin');
  const method = header(event, 'access-control-request-method');
  const requested = (header(event, 'access-control-request-headers') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (
    origin !== undefined &&
    originOf(origin) !== undefined &&
    method === 'POST' &&
    requested.every((name) => ALLOWED_REQUEST_HEADERS.includes(name))
  ) {
    Object.assign(headers, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    });
  }
  return { statusCode: 204, headers, body: '' };
}

/** Answers OPTIONS before the body is parsed. */
function preflight(): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'preflight',
    before: (request) => (request.event.httpMethod === 'OPTIONS' ? preflightResponse(request.event) : undefined),
  };
}

function bodyOf(result: VerifyResult): VerifyKeyResponse {
  const body: VerifyKeyResponse = { valid: result.valid, code: result.code };
  if (result.valid) {
    const { id, team_id, type, environment, scopes } = result.key;
    body.key = { id, team_id, type, environment, scopes };
  }
  if ('ratelimit' in result) {
    const { limit, remaining, reset } = result.ratelimit;
    body.ratelimit = { limit, remaining, reset };
  }
  return body;
}

function headersOf(result: VerifyResult): Record<string, string> {
  const headers: Record<string, string> = {};
  if (result.code === 'RATE_LIMITED') headers['Retry-After'] = String(result.ratelimit.retryAfterSeconds ?? 1);
  if (result.allowedOrigin !== undefined) {
    headers['Access-Control-Allow-Origin'] = result.allowedOrigin;
    headers['Access-Control-Expose-Headers'] = 'Retry-After, X-Request-Id';
  }
  return headers;
}

async function verifyApiKey(services: Services, event: VerifyEvent): Promise<APIGatewayProxyResult> {
  const outcome = await verifyWithGuessLimit(services, {
    value: event.input.key,
    scope: event.input.scope,
    sourceIp: event.meta.sourceIp ?? undefined,
    origin: header(event, 'origin'),
    referer: header(event, 'referer'),
  });
  if (outcome.kind === 'too-many-guesses') {
    throw new ApiError(
      ErrorCode.RATE_LIMITED,
      'Too many verifications of unknown keys from this address. Retry later.',
      [],
      { 'Retry-After': String(outcome.retryAfterSeconds) },
    );
  }
  return jsonResponse(200, bodyOf(outcome.result), event.meta.requestId, headersOf(outcome.result));
}

export const makeHandler = (services: () => Services) =>
  middy<AnyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    .use(varyOnOrigin())
    .use(errorResponses())
    .use(preflight())
    .use(jsonBody(() => verifyKeyRequestSchema))
    .handler((event) => verifyApiKey(services(), event as VerifyEvent));

export const handler = makeHandler(environmentServices);
