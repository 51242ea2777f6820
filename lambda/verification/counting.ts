/**
 * What a verification is counted as in the analytics (docs/analytics.md):
 * a value that belongs to a key, by the key's team and identity, the scopes
 * asked and the outcome. A value that belongs to no key (NOT_FOUND, or
 * refused by the guess limiter) is not counted here: the guess limiter
 * counts it per source.
 */
import { isOutcome, scopeDimension, type CountedVerification, type Outcome } from '../domain/verification-tally';
import type { VerifiedKey } from '../domain/model';
import type { CountsPort } from '../store/ports';
import type { VerifyResult } from './verify';

/** The counted verification of `result` for the scopes asked; undefined for a value that belongs to no key. */
export function countedOf(result: VerifyResult, scopes: readonly string[] | undefined): CountedVerification | undefined {
  if (!isOutcome(result.code)) return undefined;
  const scope = scopeDimension(scopes);
  if (result.valid) return countedFor(result.key, scope, 'VALID');
  if (result.keyId === undefined || result.owner === undefined) return undefined;
  return { teamId: result.owner.teamId, keyId: result.keyId, identityId: result.owner.identityId ?? '', scope, outcome: result.code };
}

/** Counts `result` in this process (a function without the counts port counts nothing). */
export function countVerification(deps: Partial<CountsPort>, result: VerifyResult, scopes: readonly string[] | undefined): void {
  const counted = countedOf(result, scopes);
  if (counted) deps.counts?.count(counted);
}

/**
 * Counts a management request's authentication by the key that made it
 * (http/middleware.ts): VALID, the refusal of a key that may not make it
 * (IP, origin, scope), or RATE_LIMITED; the scope asked is `keys.manage`.
 */
export function countKeyUse(deps: Partial<CountsPort>, key: VerifiedKey, outcome: string, scopes: readonly string[]): void {
  if (isOutcome(outcome)) deps.counts?.count(countedFor(key, scopeDimension(scopes), outcome));
}

/** A verification of `key` counted as `outcome` under `scope`. */
function countedFor(key: Pick<VerifiedKey, 'team_id' | 'id' | 'identity_id'>, scope: string, outcome: Outcome): CountedVerification {
  return { teamId: key.team_id, keyId: key.id, identityId: key.identity_id ?? '', scope, outcome };
}
