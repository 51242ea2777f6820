/**
 * The middlewares every management handler uses, in this order:
 * `errorResponses` (request facts + the one error body), `authenticate`
 * (Bearer key → checked caller: 401/403, read-only), `jsonBody` (strict
 * parse and zod validation: 400/413/415), `meterUsage` (usage + rate limit:
 * 429). Handlers then see typed `input` and `caller`. See `managementHandler`.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { z } from 'zod';
import { ApiError, ErrorCode, errorBody, internalErrorBody, type ErrorDetail } from '../../contract/errors';
import { log, describeError } from '../platform/log';
import { MAX_BODY_BYTES } from '../../contract/routes';
import { authenticateManager, unauthenticated } from '../auth/authorization';
import { admitUse, type CheckedKey, type VerifyServices } from '../auth/verify';
import { requestMetaOf, type ManagementEvent } from './event';
import { header } from './headers';
import { jsonResponse } from '../../contract/response';

type AnyEvent = ManagementEvent<unknown> & { checkedCaller?: CheckedKey };
type HttpRequest = Request<AnyEvent, APIGatewayProxyResult>;

/** Request facts on `event.meta`; every thrown error becomes the one error body. */
export function errorResponses(): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'errorResponses',
    before: (request: HttpRequest) => {
      request.event.meta = requestMetaOf(request.event, request.context.awsRequestId);
    },
    onError: (request: HttpRequest) => {
      const requestId = request.event.meta?.requestId ?? request.context.awsRequestId;
      const error = request.error;
      if (error instanceof ApiError) {
        request.response = jsonResponse(error.status, errorBody(error, requestId), requestId, { ...error.headers });
        return;
      }
      log.error('unexpected error', { request_id: requestId, ...describeError(error) });
      request.response = jsonResponse(500, internalErrorBody(requestId), requestId);
    },
  };
}

/**
 * Authenticates the Bearer key in the handler (no cached authorizer, so a
 * deleted key stops working on the very next request) and requires
 * `keys.manage` (auth/authorization.ts).
 */
export function authenticate(services: () => VerifyServices): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'authenticate',
    before: async (request: HttpRequest) => {
      const checked = await authenticateManager(services(), {
        headers: request.event.headers,
        sourceIp: request.event.meta.sourceIp,
      });
      request.event.checkedCaller = checked;
      request.event.caller = checked.key;
    },
  };
}

/**
 * Records the caller's use and applies its rate limit. Runs after body
 * validation, so a rejected request (400) writes nothing at all.
 */
export function meterUsage(services: () => VerifyServices): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'meterUsage',
    before: async (request: HttpRequest) => {
      const checked = request.event.checkedCaller;
      if (!checked) throw new Error('meterUsage needs authenticate() before it');
      const result = await admitUse(services(), checked);
      if (result.admitted) return;
      if (result.code === 'NOT_FOUND') throw unauthenticated('The API key is invalid.');
      throw new ApiError(ErrorCode.RATE_LIMITED, 'The calling key is over its rate limit. Retry later.', [], {
        'Retry-After': String(result.ratelimit.retryAfterSeconds ?? 1),
      });
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

function detailsOf(error: z.ZodError, body: unknown): ErrorDetail[] {
  return error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { field, issue: `unknown field(s): ${issue.keys.join(', ')}` };
    }
    // zod does not report the input by default: look at the body itself.
    if (issue.code === 'invalid_type' && !present(body, issue.path)) {
      return { field, issue: 'is required' };
    }
    return { field, issue: issue.message };
  });
}

/**
 * Parses the JSON body strictly and validates it with the schema built for
 * this request (schemas may depend on the clock). Handlers get `event.input`.
 */
export function jsonBody<TSchema extends z.ZodType>(
  schemaFor: () => TSchema,
  options: { confirmationField?: string } = {},
): MiddlewareObj<AnyEvent, APIGatewayProxyResult> {
  return {
    name: 'jsonBody',
    before: (request: HttpRequest) => {
      const { event } = request;
      const contentType = header(event, 'content-type');
      if (contentType !== undefined && !/^application\/(.+\+)?json\s*(;|$)/i.test(contentType.trim())) {
        throw new ApiError(
          ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          `Content-Type must be application/json, got "${contentType.slice(0, 100)}".`,
        );
      }
      const raw = event.body ?? '';
      const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
        throw new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
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
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new ApiError(ErrorCode.VALIDATION_FAILED, 'The request body must be a JSON object.');
      }
      const result = schemaFor().safeParse(parsed);
      if (!result.success) {
        const details = detailsOf(result.error, parsed);
        const summary = details.map((d) => (d.field ? `${d.field} ${d.issue}` : d.issue)).join('; ');
        if (options.confirmationField && details.every((d) => d.field === options.confirmationField)) {
          throw new ApiError(
            ErrorCode.CONFIRMATION_REQUIRED,
            `Deletion not confirmed: send "${options.confirmationField}": true to delete the key permanently.`,
            details,
          );
        }
        throw new ApiError(ErrorCode.VALIDATION_FAILED, `The request is invalid: ${summary}.`, details);
      }
      event.input = result.data;
    },
  };
}

