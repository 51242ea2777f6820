/**
 * Authorization rules of the management endpoints, as pure functions over
 * the verified caller. Authentication itself is `verifyKey`.
 */
import { ApiError, ErrorCode } from '../../contract/errors';
import type { VerifiedKey } from './verify';
import type { Environment } from '../keys/key-values';
import { uncoveredScopes } from '../../contract/scopes';

/** A create request may not reach outside the caller's team, environment or scopes. */
export function authorizeCreate(
  caller: VerifiedKey,
  request: { team_id: string; environment: Environment; scopes: readonly string[] },
): void {
  if (request.team_id !== caller.team_id) {
    throw new ApiError(ErrorCode.FORBIDDEN, 'The calling key cannot create keys for another team.', [
      { field: 'team_id', issue: 'must be the calling key’s team' },
    ]);
  }
  assertEnvironmentReach(caller, request.environment);
  const missing = uncoveredScopes(caller.scopes, request.scopes);
  if (missing.length > 0) {
    throw new ApiError(
      ErrorCode.FORBIDDEN,
      'The calling key cannot grant scopes it does not hold itself.',
      missing.map((scope) => ({ field: 'scopes', issue: `not held by the calling key: ${scope}` })),
    );
  }
}

/** A `test` key may act only on `test` keys. */
export function assertEnvironmentReach(caller: VerifiedKey, target: Environment): void {
  if (caller.environment === 'test' && target === 'live') {
    throw new ApiError(ErrorCode.FORBIDDEN, 'A test key cannot act on live keys.');
  }
}

/** A key outside the caller's team is reported exactly like a missing one. */
export function notFound(keyId: string): ApiError {
  return new ApiError(ErrorCode.NOT_FOUND, 'No key with this id exists in the calling key’s team.', [
    { field: 'key_id', issue: `not found: ${keyId}` },
  ]);
}
