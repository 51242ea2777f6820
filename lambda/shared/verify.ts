/**
 * The one verify function: the platform's verify endpoint, the Lambda
 * authorizer and the management endpoints' authentication all call it.
 *
 * Cost of a valid verification: one strongly consistent GetItem (the value
 * lookup, which carries a snapshot of the key's configuration) and one
 * UpdateItem (usage + rate limit). A malformed value or a bad checksum costs
 * nothing: it is refused before any I/O.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from './clock';
import { hashKeyValue, parseKeyValue, type Environment, type KeyType } from './key-values';
import { keyTableKeys } from './table-schema';
import type { ValueLookupItem, ValueSlot } from './model';
import { ipAllowed } from './ip-allowlist';
import { originAllowed } from './domains';
import { anyScopeCovers } from './scopes';
import { recordUse, type RateLimitState } from './usage';

export const VerifyFailure = {
  NOT_FOUND: 'NOT_FOUND',
  EXPIRED: 'EXPIRED',
  REVOKED: 'REVOKED',
  INACTIVE: 'INACTIVE',
  IP_NOT_ALLOWED: 'IP_NOT_ALLOWED',
  ORIGIN_NOT_ALLOWED: 'ORIGIN_NOT_ALLOWED',
  SCOPE_DENIED: 'SCOPE_DENIED',
  RATE_LIMITED: 'RATE_LIMITED',
} as const;
export type VerifyFailureCode = (typeof VerifyFailure)[keyof typeof VerifyFailure];

export interface VerifyRequest {
  /** The presented value. */
  value: string;
  /** Caller's source IP (API Gateway `requestContext.identity.sourceIp`). */
  sourceIp?: string;
  /** `Origin` header, for public keys. */
  origin?: string;
  /** `Referer` header, for public keys. */
  referer?: string;
  /** Scope the route needs; omitted when any valid key will do. */
  scope?: string;
}

/** What a valid verification knows about the key. */
export interface VerifiedKey {
  id: string;
  team_id: string;
  name: string;
  type: KeyType;
  environment: Environment;
  scopes: string[];
  created_by: string;
  rate_limit: number;
  /** Which of the key's values was presented. */
  slot: ValueSlot;
}

export type VerifyResult =
  | { valid: true; code: 'VALID'; key: VerifiedKey; ratelimit: RateLimitState }
  | { valid: false; code: Exclude<VerifyFailureCode, 'RATE_LIMITED'>; keyId?: string }
  | { valid: false; code: 'RATE_LIMITED'; keyId: string; ratelimit: RateLimitState };

export interface VerifyDeps {
  db: DynamoDBDocumentClient;
  keyTableName: string;
  clock: Clock;
  pepper?: string;
}

function originOk(lookup: ValueLookupItem, request: VerifyRequest): boolean {
  if (lookup.type !== 'pk' || lookup.domains.length === 0) return true;
  // A browser sends Origin on CORS requests and Referer on most others; every one present must match.
  const presented = [request.origin, request.referer].filter((v): v is string => v !== undefined && v !== '');
  if (presented.length === 0) return false;
  return presented.every((url) => originAllowed(lookup.domains, url));
}

/** A key that passed every check, before its use is recorded. */
export interface CheckedKey {
  key: VerifiedKey;
  /** Set while the key is in a transition: which transition, and which value was used. */
  transition?: { generation: number; role: 'old' | 'new' };
}

export type CheckResult =
  | { valid: true; checked: CheckedKey }
  | { valid: false; code: Exclude<VerifyFailureCode, 'RATE_LIMITED'>; keyId?: string };

/**
 * Read-only part of verification: shape, lookup, revocation, expiry, IP,
 * origin and scope. Writes nothing.
 */
export async function checkKey(deps: VerifyDeps, request: VerifyRequest): Promise<CheckResult> {
  if (!parseKeyValue(request.value)) return { valid: false, code: VerifyFailure.NOT_FOUND };

  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.keyTableName,
      Key: keyTableKeys.valueLookup(hashKeyValue(request.value, deps.pepper)),
      ConsistentRead: true,
    }),
  );
  const lookup = Item as ValueLookupItem | undefined;
  if (!lookup) return { valid: false, code: VerifyFailure.NOT_FOUND };

  const now = deps.clock.now().getTime();
  const keyId = lookup.key_id;
  // The clock decides when an old value dies, whether or not clean-up has run.
  if (lookup.slot === 'previous' && (!lookup.valid_until || Date.parse(lookup.valid_until) <= now)) {
    return { valid: false, code: VerifyFailure.REVOKED, keyId };
  }
  if (!lookup.is_active) return { valid: false, code: VerifyFailure.INACTIVE, keyId };
  if (lookup.expires_at !== null && Date.parse(lookup.expires_at) <= now) {
    return { valid: false, code: VerifyFailure.EXPIRED, keyId };
  }
  if (!ipAllowed(lookup.ip_whitelist, request.sourceIp)) {
    return { valid: false, code: VerifyFailure.IP_NOT_ALLOWED, keyId };
  }
  if (!originOk(lookup, request)) return { valid: false, code: VerifyFailure.ORIGIN_NOT_ALLOWED, keyId };
  if (request.scope !== undefined && !anyScopeCovers(lookup.scopes, request.scope)) {
    return { valid: false, code: VerifyFailure.SCOPE_DENIED, keyId };
  }

  const inTransition =
    lookup.transition_ends_at !== undefined &&
    lookup.transition_generation !== undefined &&
    Date.parse(lookup.transition_ends_at) > now;
  return {
    valid: true,
    checked: {
      key: {
        id: keyId,
        team_id: lookup.team_id,
        name: lookup.name,
        type: lookup.type,
        environment: lookup.environment,
        scopes: lookup.scopes,
        created_by: lookup.created_by,
        rate_limit: lookup.rate_limit,
        slot: lookup.slot,
      },
      transition: inTransition
        ? { generation: lookup.transition_generation as number, role: lookup.slot === 'previous' ? 'old' : 'new' }
        : undefined,
    },
  };
}

export type AdmitResult =
  | { admitted: true; ratelimit: RateLimitState }
  | { admitted: false; code: 'RATE_LIMITED'; ratelimit: RateLimitState }
  | { admitted: false; code: 'NOT_FOUND' };

/** Records the use of a checked key and applies its rate limit (one UpdateItem). */
export async function admitUse(deps: VerifyDeps, checked: CheckedKey): Promise<AdmitResult> {
  const use = await recordUse(deps.db, deps.keyTableName, {
    keyId: checked.key.id,
    at: deps.clock.now(),
    rateLimit: checked.key.rate_limit,
    transition: checked.transition,
  });
  if (use.admitted) return { admitted: true, ratelimit: use.rateLimit };
  // No usage item: the key vanished between the read and the write.
  if (use.reason === 'NO_USAGE_ITEM') return { admitted: false, code: 'NOT_FOUND' };
  return { admitted: false, code: 'RATE_LIMITED', ratelimit: use.rateLimit };
}

/** Verifies a presented value and records the use: `checkKey` then `admitUse`. */
export async function verifyKey(deps: VerifyDeps, request: VerifyRequest): Promise<VerifyResult> {
  const check = await checkKey(deps, request);
  if (!check.valid) return check;
  const admit = await admitUse(deps, check.checked);
  if (admit.admitted) return { valid: true, code: 'VALID', key: check.checked.key, ratelimit: admit.ratelimit };
  if (admit.code === 'NOT_FOUND') return { valid: false, code: VerifyFailure.NOT_FOUND };
  return { valid: false, code: VerifyFailure.RATE_LIMITED, keyId: check.checked.key.id, ratelimit: admit.ratelimit };
}
