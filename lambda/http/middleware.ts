/**
 * The middlewares every management handler uses, in this order:
 * `errorResponses` (request facts, the one error body, the caller's
 * RateLimit headers on every answer), `authenticateAndMeter` (Bearer key →
 * 401; the caller's use recorded and its rate limit applied → 429; then a
 * 403 for a valid key that may not make this request), `jsonBody` or
 * `queryInput` (query-input.ts) (strict parse and zod validation: 400/413/415). Every
 * authenticated request is a use, whatever its outcome; only a 429 takes no
 * slot. Handlers then see typed `input` and `caller`. See `managementHandler`.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type * as z from 'zod/mini';
import { ApiError, ErrorCode, errorBody, internalErrorBody, invalidRequest, type ErrorDetail } from '../contract/errors';
// What an error echoes from the request passes through withoutKeyValues where the
// error is made, so no copy of it (the answer, a log line, a trace's error metadata) holds a key value.
import { errorBodyWithoutKeyValues, withoutKeyValues } from '../platform/redaction';
import { errorField, isThrottlingError, signals, type Observability } from '../platform/observability';
import { MAX_BODY_BYTES } from '../contract/routes';
import { authenticateManager, managementFailure, unauthenticated } from './authentication';
import { callerFromAuthorizer } from './management-authorizer';
import { admitUse, type CheckedKey, type VerifyServices } from '../verification/verify';
import { rateLimitHeaders } from '../domain/rate-window';
import { deprecationHeaders } from '../domain/value-used';
import { countKeyUse } from '../verification/counting';
import type { CountsPort } from '../store/ports';
import { KEYS_MANAGE } from '../contract/scopes';
import { requestMetaOf, type ManagementEvent } from './event';
import { PrefetchedItems, targetItemKeys } from '../store/prefetch';
import { header } from './headers';
import { acceptedNames } from './accepted-names';
import { duplicateNames } from './duplicate-names';
import { closestName } from '../platform/closest-name';
import { jsonResponse } from '../contract/response';

type AnyEvent = ManagementEvent<unknown> & { checkedCaller?: CheckedKey; rateLimitHeaders?: Record<string, string>; prefetched?: PrefetchedItems };
type HttpRequest = Request<AnyEvent, APIGatewayProxyResult>;

/**
 * Request facts on `event.meta`; every thrown error becomes the one error
 * body. DynamoDB still throttling after the SDK's retries is 503 with
 * `Retry-After` (and the `Throttled` metric); anything else unexpected is a
 * logged 500 that shows only the request id.
 */
export function errorResponses(observe: () => Observability): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'errorResponses',
    before: (request: HttpRequest) => {
      request.event.meta = requestMetaOf(request.event, request.context.awsRequestId);
    },
    onError: (request: HttpRequest) => {
      const requestId = request.event.meta?.requestId ?? request.context.awsRequestId;
      const error = request.error;
      const rateLimit = request.event.rateLimitHeaders ?? {};
      if (error instanceof ApiError) {
        request.response = jsonResponse(error.status, errorBodyWithoutKeyValues(error, requestId), requestId, { ...rateLimit, ...error.headers });
        return;
      }
      if (isThrottlingError(error)) {
        signals.throttled(observe());
        observe().logger.warn('storage throttled the request', errorField(error));
        const busy = new ApiError(ErrorCode.SERVICE_UNAVAILABLE, 'The service is busy. Retry shortly.', [], { 'Retry-After': '1' });
        request.response = jsonResponse(busy.status, errorBody(busy, requestId), requestId, { ...rateLimit, ...busy.headers });
        return;
      }
      observe().logger.error('unexpected error', errorField(error));
      request.response = jsonResponse(500, internalErrorBody(requestId), requestId, rateLimit);
    },
    after: (request: HttpRequest) => {
      if (request.response && request.event.rateLimitHeaders) {
        request.response.headers = { ...request.event.rateLimitHeaders, ...request.response.headers };
      }
    },
  };
}

/**
 * Authenticates the Bearer key in the handler (no cached authorizer, so a
 * deleted key stops working on the very next request), records the use and
 * applies the rate limit, then refuses (403) a valid key that may not make
 * this request. Runs before validation: a malformed request is a use too.
 */
export function authenticateAndMeter(
  services: () => VerifyServices & Partial<CountsPort> & { observe: Observability },
  options: { targetKeyId?: (event: AnyEvent) => string | undefined } = {},
): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'authenticateAndMeter',
    before: async (request: HttpRequest) => {
      const deps = services();
      // The target key's items, read in the same round trip (store/prefetch.ts).
      const targetKeyId = options.targetKeyId?.(request.event);
      const prefetch = targetItemKeys(targetKeyId);
      // Taken before the read: a usage item read while this process changes it is not served later.
      const usageMark = targetKeyId === undefined ? undefined : deps.usage.readMark(targetKeyId);
      // Behind API Gateway (or the local gateway stage) the management
      // authorizer has checked the key already: its context, not a second read.
      const fromAuthorizer = callerFromAuthorizer(request.event.requestContext?.authorizer);
      const { checked, refusal, refusalCode, companions } = fromAuthorizer
        ? {
            checked: fromAuthorizer.checked,
            refusal: fromAuthorizer.refusal ? managementFailure({ code: fromAuthorizer.refusal }) : undefined,
            refusalCode: fromAuthorizer.refusal,
            companions: prefetch.length > 0 ? await deps.lookups.getItems(prefetch) : undefined,
          }
        : await authenticateManager(
            deps,
            { headers: request.event.headers, multiValueHeaders: request.event.multiValueHeaders, sourceIp: request.event.meta.sourceIp },
            prefetch,
          );
      if (companions) request.event.prefetched = new PrefetchedItems(prefetch, companions, usageMark);
      request.event.checkedCaller = checked;
      request.event.caller = checked.key;
      // A key refused for this request (IP, origin, scope) is a use all the same, never a VALID one.
      const result = await admitUse(deps, checked, refusalCode !== undefined);
      if (!result.admitted && result.code === 'NOT_FOUND') throw unauthenticated('The API key is invalid.');
      // The analytics' count of this authentication (docs/analytics.md): over its limit, refused for this request, or VALID.
      countKeyUse(deps, checked.key, result.admitted ? (refusalCode ?? 'VALID') : result.code, [KEYS_MANAGE]);
      // On every answer to this caller: its RateLimit headers, and for an old value Deprecation and Sunset.
      const now = deps.clock.now();
      request.event.rateLimitHeaders = { ...rateLimitHeaders(result.ratelimit, now), ...deprecationHeaders(checked.key, now) };
      if (!result.admitted) {
        signals.rateLimited(deps.observe);
        throw new ApiError(ErrorCode.RATE_LIMITED, 'The calling key is over its rate limit. Retry later.', [], {
          'Retry-After': String(result.ratelimit.retryAfterSeconds ?? 1),
        });
      }
      if (refusal) throw refusal;
    },
  };
}

/**
 * Refuses (403) a test key on a route declared `reach: 'live'`, after its
 * use is counted and before its input is read.
 */
export function liveReachOnly(routeName: string): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'liveReachOnly',
    before: (request: HttpRequest) => {
      if (request.event.caller.environment === 'live') return;
      throw new ApiError(
        ErrorCode.FORBIDDEN,
        `A test key cannot call ${routeName}: webhook endpoints receive every key's events, live keys' included, so only a live manager key manages them.`,
        [{ field: 'Authorization', issue: 'needs a live key' }],
      );
    },
  };
}

/** Whether the body holds a value (even a wrong one) at the path. */
function present(body: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  let node: unknown = body;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.prototype.hasOwnProperty.call(node, segment)) return false;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node !== undefined;
}

/** Body options: the field whose lone problem is a missing confirmation; fields of the resource a request may not set. */
export interface BodyOptions {
  confirmationField?: string;
  /** Top-level names that are the resource's own but not settable here: "cannot be changed" instead of "not a field". */
  readOnlyFields?: Readonly<Record<string, string>>;
  /** Largest body, in bytes (413 beyond). Default `MAX_BODY_BYTES`. */
  maxBytes?: number;
  /** The body is a JSON array (a partner's report), not an object. */
  array?: boolean;
}

/** How the input is read: its names are a body's fields or a query's parameters, the names the schema accepts. */
interface InputNames {
  noun: 'field' | 'parameter';
  accepted: readonly string[];
}

/** Unknown names given a "did you mean" at most (the rest are listed without one). */
const MAX_SUGGESTIONS = 10;

/**
 * `z.int()` refuses a number past ±2^53 on its own, with the schema's
 * "must be a whole number …" message, which reads wrong for 1e20: the
 * field's range check, which also fails, says what is wrong.
 */
function beyondSafeIntegers(issue: z.core.$ZodIssue): boolean {
  const bound = issue.code === 'too_big' ? issue.maximum : issue.code === 'too_small' ? issue.minimum : undefined;
  return bound !== undefined && Math.abs(Number(bound)) === Number.MAX_SAFE_INTEGER;
}

function detailsOf(error: z.core.$ZodError, body: unknown, options: BodyOptions, names: InputNames): ErrorDetail[] {
  const samePath = (a: z.core.$ZodIssue, b: z.core.$ZodIssue) => a !== b && a.path.join('\0') === b.path.join('\0');
  const issues = error.issues.filter((issue) => !(beyondSafeIntegers(issue) && error.issues.some((other) => samePath(issue, other))));
  const refused = `is not a ${names.noun} of this request`;
  let suggestions = 0;
  const unknownName = (key: string): string => {
    const meant = suggestions++ < MAX_SUGGESTIONS ? closestName(key, names.accepted) : undefined;
    return meant === undefined ? refused : `${refused} (did you mean ${meant}?)`;
  };
  return issues.flatMap((issue) => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      // One detail per unknown name, at its own path, so a client maps it like any other field's problem.
      const topLevel = issue.path.length === 0;
      const readOnly = topLevel ? (options.readOnlyFields ?? {}) : {};
      return issue.keys.map((key) => ({
        field: withoutKeyValues([...issue.path.map(String), key].join('.')),
        issue: Object.hasOwn(readOnly, key) ? readOnly[key] : topLevel ? unknownName(key) : refused,
      }));
    }
    // zod does not report the input by default: look at the body itself.
    if (issue.code === 'invalid_type' && !present(body, issue.path)) {
      return [{ field, issue: 'is required' }];
    }
    // A missing field of a fixed set of values (an enum, a literal): required, and what it takes.
    if (issue.code === 'invalid_value' && !present(body, issue.path)) {
      return [{ field, issue: `is required (${issue.message})` }];
    }
    return [{ field, issue: issue.message }];
  });
}

/**
 * Parses the JSON body strictly and validates it with the schema built for
 * this request (schemas may depend on the clock). Handlers get `event.input`.
 */
export function jsonBody<TSchema extends z.ZodMiniType>(schemaFor: () => TSchema, options: BodyOptions = {}): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'jsonBody',
    before: (request: HttpRequest) => {
      const { event } = request;
      const contentType = header(event, 'content-type');
      if (contentType !== undefined && !/^application\/(.+\+)?json\s*(;|$)/i.test(contentType.trim())) {
        throw new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Type must be application/json, got "${withoutKeyValues(contentType).slice(0, 100)}".`);
      }
      // JSON between systems is UTF-8 (RFC 8259 §8.1), and the body is read as UTF-8: a body sent as another charset would be read wrong.
      const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1];
      if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
        throw new ApiError(
          ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          `Content-Type charset must be utf-8 (or left out), got "${withoutKeyValues(charset).slice(0, 40)}".`,
        );
      }
      const raw = event.body ?? '';
      const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
      if (Buffer.byteLength(text, 'utf8') > maxBytes) {
        throw new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body exceeds ${maxBytes} bytes.`);
      }
      if (text.trim() === '') {
        throw new ApiError(ErrorCode.VALIDATION_FAILED, 'A JSON request body is required.');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError(ErrorCode.INVALID_JSON, 'The request body is not valid JSON.');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) !== (options.array ?? false)) {
        throw new ApiError(ErrorCode.VALIDATION_FAILED, `The request body must be a JSON ${options.array ? 'array' : 'object'}.`);
      }
      const repeated = duplicateNames(text).map((field) => ({ field: withoutKeyValues(field), issue: 'must be given once' }));
      if (repeated.length > 0) throw invalidRequest(repeated);
      event.input = validated(schemaFor(), parsed, 'field', options);
    },
  };
}

/** The schema's output for `input`, or the 400 listing every problem. */
export function validated<TSchema extends z.ZodMiniType>(
  schema: TSchema,
  input: object,
  noun: InputNames['noun'],
  options: BodyOptions = {},
): z.output<TSchema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = detailsOf(result.error, input, options, { noun, accepted: acceptedNames(schema) });
  if (options.confirmationField && details.every((d) => d.field === options.confirmationField)) {
    throw new ApiError(
      ErrorCode.CONFIRMATION_REQUIRED,
      `Deletion not confirmed: send "${options.confirmationField}": true to delete the key permanently.`,
      details,
    );
  }
  throw invalidRequest(details);
}
