/**
 * The parts of the API reference every route's operation is built from
 * (lambda/routes/<route>/openapi.ts): headers, the shared error answers, the
 * success answer's shape. Full zod and zod-openapi types: read by the OpenAPI
 * builder (api/openapi.ts) only, never by a handler, so no bundle carries it.
 */
import * as z from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import { MAX_BODY_BYTES } from '../contract/routes';
import { errorBodySchema } from './response-schemas';

/** The clock the request schemas read (`expires_at` must be in the future): irrelevant to their shape. */
export const now = (): Date => new Date();

export const header = (description: string, schema: z.ZodType = z.string()) => schema.meta({ description });

/** Headers on every answer. */
export const commonHeaders = {
  'X-Request-Id': header('The request id, also in the body (`meta.request_id` or `error.request_id`)'),
  'Cache-Control': header('Always `no-store`: some answers carry a key value'),
};
/** Headers on every answer to an authenticated caller: its own hourly limit (draft-ietf-httpapi-ratelimit-headers). */
export const rateLimitHeaders = {
  RateLimit: header('The calling key\'s hourly limit: `"hourly";r=<remaining>;t=<seconds until reset>`').optional(),
  'RateLimit-Policy': header('`"hourly";q=<rate_limit>;w=3600`').optional(),
};
/** Headers on every answer to a management request made with a key's old value (a regeneration's grace period). */
export const deprecationHeaders = {
  Deprecation: header("Only for a request made with a key's old value: `@<epoch seconds>`, when it was replaced (RFC 9745)").optional(),
  Sunset: header("Only for a request made with a key's old value: when it stops working, an HTTP date (RFC 8594)").optional(),
};
export const retryAfter = { 'Retry-After': header('Seconds to wait before retrying', z.string().regex(/^[0-9]+$/)) };

export const json = (schema: z.core.$ZodType) => ({ 'application/json': { schema } });

export function error(description: string, extraHeaders: Record<string, z.ZodType> = {}, id?: string) {
  return {
    description,
    headers: z.object({ ...commonHeaders, ...rateLimitHeaders, ...deprecationHeaders, ...extraHeaders }),
    content: json(errorBodySchema),
    ...(id ? { id } : {}),
  };
}

/** Error answers shared by routes, registered once under `components.responses`. */
export const shared = {
  '400': error('`VALIDATION_FAILED` (each problem in `details`), `INVALID_JSON` or `CONFIRMATION_REQUIRED`', {}, 'BadRequest'),
  '401': error(
    '`UNAUTHORIZED`: no, a malformed, an unknown, a revoked or a disabled key',
    { 'WWW-Authenticate': header('`Bearer realm="api-keys", error="invalid_token"` (RFC 6750)') },
    'Unauthorized',
  ),
  '403': error('`FORBIDDEN`: the key may not make this request (scope, IP, origin, environment, team)', {}, 'Forbidden'),
  '404': error("`NOT_FOUND`: no such key, or not the caller's team (the same answer either way)", {}, 'KeyNotFound'),
  '405': error('`METHOD_NOT_ALLOWED`', { Allow: header('The methods the path answers') }, 'MethodNotAllowed'),
  '413': error(`\`PAYLOAD_TOO_LARGE\`: a body over ${MAX_BODY_BYTES} bytes`, {}, 'PayloadTooLarge'),
  '415': error('`UNSUPPORTED_MEDIA_TYPE`: a body that is not `application/json`', {}, 'UnsupportedMediaType'),
  '422': error('`IDEMPOTENCY_KEY_REUSED`: this Idempotency-Key was used for a different request in the last 24 hours', {}, 'IdempotencyKeyReused'),
  '429': error("`RATE_LIMITED` (the calling key's hourly limit), `THROTTLED` or `QUOTA_EXCEEDED` (the team's usage plan)", retryAfter, 'RateLimited'),
  '500': error('`INTERNAL`: only the request id is shown', {}, 'InternalError'),
  '503': error('`SERVICE_UNAVAILABLE`: storage is throttling; retry', retryAfter, 'ServiceUnavailable'),
};

/** The answers every management route shares, and the route's own (`extra`: a shared status, or a status and its words). */
export function managementErrors(extra: Record<string, string | true>): ZodOpenApiResponsesObject {
  const own = Object.entries(extra).map(([status, description]) => [status, description === true ? shared[status as keyof typeof shared] : error(description)]);
  const always = Object.entries(shared).filter(([status]) => status !== '404' && status !== '422');
  return { ...Object.fromEntries(always), ...Object.fromEntries(own) };
}

export function ok(status: string, description: string, schema: z.ZodType, extraHeaders: Record<string, z.ZodType> = {}): ZodOpenApiResponsesObject {
  return {
    [status]: { description, headers: z.object({ ...commonHeaders, ...rateLimitHeaders, ...deprecationHeaders, ...extraHeaders }), content: json(schema) },
  };
}

/** The key's entity tag (lambda/http/preconditions.ts), for an `If-Match` on its next change. */
export const entityTag = {
  ETag: header('The key\'s revision, quoted (`"3"`): send it back as `If-Match` to change the key only if nobody changed it since'),
};

export const ifMatch = {
  // The handlers refuse an If-Match longer than 1,024 characters (lambda/http/preconditions.ts).
  'If-Match': z.string().max(1024).optional().meta({
    description:
      'The `ETag` that reading or updating the key answered (or `*`): the change is made only while the key is still at that revision, else 412 `PRECONDITION_FAILED` and nothing changes',
  }),
};
export const preconditionFailed = error(
  '`PRECONDITION_FAILED`: the key changed since the `If-Match` tag was read (its current tag in `ETag`)',
  { ETag: header("The key's current entity tag") },
  'PreconditionFailed',
);

export const idempotencyKey = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'Replays the first answer (with the value nulled) to a repeat of the same request for 24 hours; 422 for a different request' }),
});

/**
 * `true` when every answer of type `Answer` (what the use case returns) fits
 * the documented response `Documented`, and `never` otherwise: each route's
 * openapi.ts writes `true satisfies Fits<…>`, so a use case and its reference
 * that drift apart fail to compile (every answer the tests receive is also
 * checked against the document at run time, test/support/openapi-responses.ts).
 */
export type Fits<Answer, Documented> = [Answer] extends [Documented] ? true : never;
