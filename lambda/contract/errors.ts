/**
 * One error vocabulary: every code, its HTTP status, one error class, and the
 * one body shape `{"error": {code, message, details, request_id}}`.
 */

export const ErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID_JSON: 'INVALID_JSON',
  INVALID_CURSOR: 'INVALID_CURSOR',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  CONFIRMATION_REQUIRED: 'CONFIRMATION_REQUIRED',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  CONFLICT: 'CONFLICT',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  RATE_LIMITED: 'RATE_LIMITED',
  THROTTLED: 'THROTTLED',
  QUOTA_EXCEEDED: 'QUOTA_EXCEEDED',
  INTERNAL: 'INTERNAL',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_CURSOR: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONFIRMATION_REQUIRED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  THROTTLED: 429,
  QUOTA_EXCEEDED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** One problem with a request, e.g. a failing field. */
export interface ErrorDetail {
  /** Dotted path of the field (`scopes.1`), or empty for the whole body. */
  readonly field: string;
  readonly issue: string;
}

/** An expected failure that becomes an HTTP error response. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ReadonlyArray<ErrorDetail> = [],
    /** Extra response headers, e.g. `Retry-After` or `Allow`. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // An expected answer, not a fault: its code and message say where it came from, so no stack is captured (it cost
    // every 4xx about a tenth of the local 401 path's time).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = STATUS_BY_CODE[code];
  }
}

/** The 400 for invalid input: every problem, each named in the message ("The request is invalid: a …; b …."). */
export function invalidRequest(details: ReadonlyArray<ErrorDetail>): ApiError {
  const summary = details.map((detail) => (detail.field ? `${detail.field} ${detail.issue}` : detail.issue)).join('; ');
  return new ApiError(ErrorCode.VALIDATION_FAILED, `The request is invalid: ${summary}.`, details);
}

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details: ErrorDetail[];
    request_id: string;
  };
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: { code: error.code, message: error.message, details: [...error.details], request_id: requestId },
  };
}

/** The generic body for anything unexpected: no internal detail leaves. */
export function internalErrorBody(requestId: string): ErrorBody {
  return {
    error: {
      code: ErrorCode.INTERNAL,
      message: 'An internal error occurred. Quote the request_id when reporting it.',
      details: [],
      request_id: requestId,
    },
  };
}
