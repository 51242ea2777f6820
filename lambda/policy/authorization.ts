/**
 * Authorization policy: what a verified caller may reach and grant (the
 * environment, team and scope rules), and how a key outside the caller's
 * reach is reported. Authentication of a request is http/authentication.ts.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { uncoveredScopes } from '../contract/scopes';
import type { Environment } from '../domain/key-values';
import type { VerifiedKey } from '../verification/verify';

/** Whether a key of environment `caller` may act on keys of environment `target`: a `test` key only on `test` keys. */
export function canReach(caller: Environment, target: Environment): boolean {
  return caller === 'live' || target === 'test';
}

/** A `test` key may act only on `test` keys. */
export function assertEnvironmentReach(caller: VerifiedKey, target: Environment): void {
  if (!canReach(caller.environment, target)) {
    throw new ApiError(ErrorCode.FORBIDDEN, 'A test key cannot act on live keys.');
  }
}

/** A request naming a team acts on the caller's own team only: else 403 naming `team_id`, `refusal` saying what was asked. */
export function assertOwnTeam(caller: VerifiedKey, teamId: string | undefined, refusal: string): void {
  if (teamId !== caller.team_id) throw new ApiError(ErrorCode.FORBIDDEN, refusal, [{ field: 'team_id', issue: 'must be the calling key’s team' }]);
}

/** A create request may not reach outside the caller's team, environment or scopes. */
export function authorizeCreate(caller: VerifiedKey, request: { team_id: string; environment: Environment; scopes: readonly string[] }): void {
  assertOwnTeam(caller, request.team_id, 'The calling key cannot create keys for another team.');
  assertEnvironmentReach(caller, request.environment);
  assertGrantable(caller, request.scopes);
}

/** A caller may grant (on create or update) only scopes it holds itself, wildcards counting: no privilege escalation. */
export function assertGrantable(caller: VerifiedKey, scopes: readonly string[]): void {
  const missing = uncoveredScopes(caller.scopes, scopes);
  if (missing.length > 0) {
    throw new ApiError(
      ErrorCode.FORBIDDEN,
      'The calling key cannot grant scopes it does not hold itself.',
      missing.map((scope) => ({ field: 'scopes', issue: `not held by the calling key: ${scope}` })),
    );
  }
}

/** A key outside the caller's team is reported exactly like a missing one. */
export function notFound(keyId: string): ApiError {
  return new ApiError(ErrorCode.NOT_FOUND, 'No key with this id exists in the calling key’s team.', [{ field: 'key_id', issue: `not found: ${keyId}` }]);
}

/** 404 naming `identity_id`: no identity of the caller's team has it (another team's is reported exactly so). */
export function identityNotFound(identityId: string): ApiError {
  return new ApiError(ErrorCode.NOT_FOUND, 'No identity with this id exists in the calling key’s team.', [
    { field: 'identity_id', issue: `not found: ${identityId}` },
  ]);
}
