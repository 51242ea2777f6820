/**
 * Authentication of a request's caller: the Bearer header, what each
 * verification failure means to a management caller (401/403 with its
 * message). The management middleware and both authorizers use it; what a
 * caller may then do is the policy's (auth/authorization.ts).
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { KEYS_MANAGE } from '../contract/scopes';
import type { ItemKey } from '../contract/tables';
import { checkKey, failureOf, VerifyFailure, type CheckedKey, type CheckResult, type VerifyFailureCode, type VerifyServices } from '../verification/verify';
import { countVerification } from '../verification/counting';
import type { CountsPort } from '../store/ports';
import { header, headerCount, type HeaderMap, type MultiHeaderMap } from './headers';

const BEARER = /^Bearer ([^\s]+)$/i;
/** RFC 6750 challenges: an invalid or missing token, and a valid one lacking the scope. */
const INVALID_TOKEN = { 'WWW-Authenticate': 'Bearer realm="api-keys", error="invalid_token"' };
const INSUFFICIENT_SCOPE = { 'WWW-Authenticate': `Bearer realm="api-keys", error="insufficient_scope", scope="${KEYS_MANAGE}"` };

/** What an `Authorization` header carries. */
export type BearerToken = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'repeated' } | { kind: 'token'; value: string };

export function bearerToken(headers: { readonly headers?: HeaderMap; readonly multiValueHeaders?: MultiHeaderMap }): BearerToken {
  // Two credentials in one request: which one counts is ambiguous, so neither does.
  if (headerCount(headers, 'authorization') > 1) return { kind: 'repeated' };
  const authorization = header(headers, 'authorization')?.trim();
  if (authorization === undefined || authorization === '') return { kind: 'missing' };
  const match = BEARER.exec(authorization);
  return match ? { kind: 'token', value: match[1] } : { kind: 'malformed' };
}

/** The presented value for the platform authorizer: `Authorization: Bearer <value>`, else `x-api-key`. */
export function presentedValue(headers: { readonly headers?: HeaderMap; readonly multiValueHeaders?: MultiHeaderMap }): string | undefined {
  const bearer = bearerToken(headers);
  if (bearer.kind === 'token') return bearer.value;
  if (bearer.kind === 'repeated' || headerCount(headers, 'x-api-key') > 1) return undefined;
  const apiKey = header(headers, 'x-api-key')?.trim();
  return apiKey === '' ? undefined : apiKey;
}

/** 401 for a caller whose key does not authenticate. */
export function unauthenticated(message: string): ApiError {
  return new ApiError(ErrorCode.UNAUTHORIZED, message, [], INVALID_TOKEN);
}

/** What a failed check means to a management caller. */
export function managementFailure(result: Pick<Extract<CheckResult, { valid: false }>, 'code'>): ApiError {
  switch (result.code) {
    case VerifyFailure.IP_NOT_ALLOWED:
      return new ApiError(ErrorCode.FORBIDDEN, 'The calling key is not allowed from this IP address.');
    case VerifyFailure.ORIGIN_NOT_ALLOWED:
    case VerifyFailure.SCOPE_DENIED:
      return new ApiError(
        ErrorCode.FORBIDDEN,
        'The calling key may not manage keys: a secret (sk) key holding keys.manage is required.',
        [],
        INSUFFICIENT_SCOPE,
      );
    case VerifyFailure.EXPIRED:
      return unauthenticated('The API key has expired.');
    case VerifyFailure.REVOKED:
      return unauthenticated('The API key has been revoked.');
    case VerifyFailure.INACTIVE:
      return unauthenticated('The API key is not active.');
    case VerifyFailure.NOT_FOUND:
      return unauthenticated('The API key is invalid.');
  }
}

/** The facts of a request that authentication looks at. */
export interface AuthenticationRequest {
  readonly headers?: HeaderMap;
  readonly multiValueHeaders?: MultiHeaderMap;
  readonly sourceIp: string | null;
}

/** The answer to a request carrying more than one `Authorization` header. */
export function repeatedAuthorization(): ApiError {
  return new ApiError(ErrorCode.VALIDATION_FAILED, 'Send one Authorization header: this request carries several.', [
    { field: 'Authorization', issue: 'must be sent once' },
  ]);
}

/**
 * What authenticating a management caller found: the caller's valid key
 * (whose use counts, whatever the outcome) and, when the key may not make
 * this request (IP, origin, a missing `keys.manage`), the 403 to answer
 * once the use is recorded.
 */
export interface AuthenticatedCaller {
  readonly checked: CheckedKey;
  readonly refusal?: ApiError;
  /** Why the key was refused (`refusal`'s cause), for an authorizer to pass on. */
  readonly refusalCode?: Exclude<VerifyFailureCode, 'RATE_LIMITED'>;
  /** The `companionKeys` items found (read in the same round trip as the caller's lookup). */
  readonly companions?: Record<string, unknown>[];
}

/**
 * Authenticates a management caller: a Bearer key that passes every check
 * and holds `keys.manage`. Read-only. Throws 401 for anything that is not a
 * valid key of ours; a valid key refused for this request comes back with
 * its refusal, so its use is recorded first.
 */
export async function authenticateManager(
  deps: VerifyServices & Partial<CountsPort>,
  request: AuthenticationRequest,
  companionKeys: readonly ItemKey[] = [],
): Promise<AuthenticatedCaller> {
  const bearer = bearerToken(request);
  if (bearer.kind === 'missing') throw unauthenticated('Missing Authorization header: send "Authorization: Bearer <API key>".');
  if (bearer.kind === 'malformed') throw unauthenticated('Malformed Authorization header: expected "Bearer <API key>".');
  if (bearer.kind === 'repeated') throw repeatedAuthorization();
  const result = await checkKey(
    deps,
    {
      value: bearer.value,
      sourceIp: request.sourceIp ?? undefined,
      origin: header(request, 'origin'),
      referer: header(request, 'referer'),
      scope: KEYS_MANAGE,
    },
    { companionKeys },
  );
  const { companions } = result;
  if (result.valid) return { checked: result.checked, companions };
  if (result.refusedKey) return { checked: result.refusedKey, refusal: managementFailure(result), refusalCode: result.code, companions };
  // A value of a key that no longer authenticates (INACTIVE, EXPIRED, REVOKED) is counted here; an unknown one is not.
  countVerification(deps, failureOf(result), [KEYS_MANAGE]);
  throw managementFailure(result);
}
