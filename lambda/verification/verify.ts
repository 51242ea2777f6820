/**
 * The one verify function: the platform's verify endpoint, the Lambda
 * authorizer and the management endpoints' authentication all call it.
 *
 * `checkKey` is the read-only part (shape and checksum, lookup, revocation,
 * state, expiry, IP, origin, scope); `admitUse` records the use and applies
 * the key's rate limit; `verifyKey` is the two together. Management endpoints
 * call them separately so that a request refused with 400 writes nothing.
 *
 * Cost of a valid verification: one strongly consistent read (GetItem of the
 * value lookup, which carries a snapshot of the key's configuration; a
 * BatchGetItem when a caller adds a companion item such as the verify
 * endpoint's per-IP counter) and one conditional UpdateItem (usage + rate
 * limit). A malformed value or a bad checksum costs nothing: it is refused
 * before any I/O.
 */
import type { ItemKey } from '../contract/tables';
import type { Clock } from '../platform/clock';
import type { ServiceSettings } from '../platform/service-settings';
import type { ProcessMemory } from '../store/process-memory';
import type { UsageStore } from '../store/usage-store';
import type { ValueLookupStore } from '../store/value-lookup-store';
import { hashKeyValue, parseKeyValue } from '../domain/key-values';
import type { ValueLookupItem, VerifiedKey } from '../domain/model';

export type { VerifiedKey };
import { callerNetworkOf, ipAllowed } from '../domain/ip-allowlist';
import { originAllowed, originOf } from '../domain/domains';
import { uncoveredScopes } from '../contract/scopes';
import type { RateLimitState } from '../domain/rate-window';
import type { MeterFigures, RecordUseResult } from '../domain/recording';
import type { IdentityStore } from '../store/identity-store';
import type { MeteredUses } from '../store/metered-use';
import { recordCheckedUse, useOf, type CheckedKey } from './metered';
import { checkedGraceOf, idleEnd, needsIdleCheck, noteGraceUse, trackedSource } from './grace';

export { useOf, type CheckedKey };

export const VerifyFailure = {
  NOT_FOUND: 'NOT_FOUND',
  EXPIRED: 'EXPIRED',
  REVOKED: 'REVOKED',
  INACTIVE: 'INACTIVE',
  IP_NOT_ALLOWED: 'IP_NOT_ALLOWED',
  ORIGIN_NOT_ALLOWED: 'ORIGIN_NOT_ALLOWED',
  SCOPE_DENIED: 'SCOPE_DENIED',
  RATE_LIMITED: 'RATE_LIMITED',
  USAGE_EXCEEDED: 'USAGE_EXCEEDED',
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
  /** Scope(s) the route needs, every one of them; omitted when any valid key will do. */
  scope?: string | readonly string[];
  /**
   * Credits the verification costs. Set (the verify endpoint, the platform
   * authorizer): the key's and its identity's named limits and credits apply
   * (store/metered-use.ts). Unset (management authentication): only the
   * hourly limit.
   */
  cost?: number;
}

/**
 * `allowedOrigin`: the request's `Origin`, exactly as sent, when the key is a
 * public key whose domains allow it (or that has no domain restriction). Set
 * on every result reached after the origin check, so a browser page on that
 * origin may read the answer (CORS); never set for secret keys.
 */
export type VerifyResult =
  | { valid: true; code: 'VALID'; key: VerifiedKey; ratelimit: RateLimitState; meters?: MeterFigures; allowedOrigin?: string }
  | { valid: false; code: Exclude<VerifyFailureCode, AdmissionCode>; keyId?: string; allowedOrigin?: string; owner?: KeyOwner }
  | { valid: false; code: AdmissionCode; keyId: string; ratelimit: RateLimitState; meters?: MeterFigures; allowedOrigin?: string; owner?: KeyOwner };

/** The team and identity of the key a refused value belongs to: what the refusal is counted under (verification/counting.ts), never answered. */
export interface KeyOwner {
  readonly teamId: string;
  readonly identityId?: string;
}

/** The owner of a key, from the key or its value lookup. */
export function ownerOf(key: { readonly team_id: string; readonly identity_id?: string }): KeyOwner {
  return { teamId: key.team_id, ...(key.identity_id ? { identityId: key.identity_id } : {}) };
}

/** The refusals of an admission: a limit (the hourly one or a named one), or credits. */
export type AdmissionCode = 'RATE_LIMITED' | 'USAGE_EXCEEDED';

/** What verification needs: the key store, the usage store, the clock and the pepper. */
export interface VerifyServices {
  readonly lookups: ValueLookupStore;
  /** A key's identity, for its limits and credits (metered verifications only; absent: an identity's are not applied). */
  readonly identities?: Pick<IdentityStore, 'identityForVerification'>;
  /** Metered admissions (metered-use.ts): the functions that meter have them. */
  readonly meters?: MeteredUses;
  readonly usage: UsageStore;
  readonly clock: Clock;
  readonly memory: ProcessMemory;
  readonly settings: Pick<ServiceSettings, 'pepper'>;
}

export interface CheckOptions {
  /**
   * Other key-table items to read in the same round trip as the value
   * lookup (one BatchGetItem instead of a GetItem). Read only when the value
   * is well formed; those found are returned as `companions`.
   */
  companionKeys?: readonly ItemKey[];
  /** The value's `presentedHash`, when the caller has it already (the value is then known to be well formed). */
  valueHash?: string;
}

/**
 * The peppered hash a presented value is looked up by, or undefined when the
 * value lacks the shape or checksum of an issued one (it cannot match
 * anything, and nothing is read for it).
 */
export function presentedHash(deps: Pick<VerifyServices, 'settings'>, value: string): string | undefined {
  return parseKeyValue(value) ? hashKeyValue(value, deps.settings.pepper) : undefined;
}

/** What the checks decide about a value lookup (`judgeLookup`). */
export type Judgement =
  | { valid: true; checked: CheckedKey }
  | {
      valid: false;
      code: Exclude<VerifyFailureCode, AdmissionCode>;
      keyId?: string;
      allowedOrigin?: string;
      owner?: KeyOwner;
      /** Set when the key itself is valid but refused for this request (IP, origin, scope): its use still counts. */
      refusedKey?: CheckedKey;
    };

/** `checkKey`'s answer: the judgement, and what the read found. */
export type CheckResult = Judgement & {
  /** Whether the value had the shape and checksum of an issued value (false: nothing was read). */
  wellFormed: boolean;
  /** The companion items found, when some were asked for and the value was well formed. */
  companions?: Record<string, unknown>[];
};

/**
 * Public keys: `domains` restrict the `Origin` (CORS) and `Referer` headers.
 * Every one of them that is present must be allowed, and at least one must
 * be present. A public key without domains is not restricted by origin.
 */
function originOk(lookup: ValueLookupItem, request: VerifyRequest): boolean {
  if (lookup.type !== 'pk' || lookup.domains.length === 0) return true;
  const presented = [request.origin, request.referer].filter((v): v is string => v !== undefined && v !== '');
  if (presented.length === 0) return false;
  return presented.every((url) => originAllowed(lookup.domains, url));
}

/** The Origin a browser on it may read the answer from (public keys only). */
function allowedOriginOf(lookup: ValueLookupItem, request: VerifyRequest): string | undefined {
  if (lookup.type !== 'pk' || request.origin === undefined || originOf(request.origin) === undefined) return undefined;
  return request.origin;
}

function scopesOf(request: VerifyRequest): readonly string[] {
  if (request.scope === undefined) return [];
  return typeof request.scope === 'string' ? [request.scope] : request.scope;
}

/**
 * Read-only part of verification: shape, lookup, revocation, state, expiry,
 * IP, origin and scope. Writes nothing.
 */
export async function checkKey(deps: VerifyServices, request: VerifyRequest, options: CheckOptions = {}): Promise<CheckResult> {
  const valueHash = options.valueHash ?? presentedHash(deps, request.value);
  if (valueHash === undefined) return { valid: false, code: VerifyFailure.NOT_FOUND, wellFormed: false };

  const { lookup, companions } = options.companionKeys?.length
    ? await deps.lookups.getValueLookupWith(valueHash, options.companionKeys)
    : { lookup: await deps.lookups.getValueLookup(valueHash), companions: undefined };
  const now = deps.clock.now().getTime();
  const judged = trackedSource(deps, judgeLookup(lookup, request, now));
  return { ...(judged.valid && needsIdleCheck(judged.checked, now) ? await idleJudgement(deps, judged.checked, now) : judged), wellFormed: true, companions };
}

/** An old value under `until_idle` past its new value's first use plus `grace_minutes`: VALID while not idle that long (grace.ts). */
async function idleJudgement(deps: VerifyServices, checked: CheckedKey, now: number): Promise<Judgement> {
  const end = await idleEnd(deps, checked, now, deps.usage.pendingBoundMs());
  if (end === undefined) return { valid: false, code: VerifyFailure.REVOKED, keyId: checked.key.id, owner: ownerOf(checked.key) };
  return { valid: true, checked: { ...checked, key: { ...checked.key, old_value_ends_at: new Date(end).toISOString() } } };
}

/**
 * The checks of `checkKey` on a value lookup already read (or absent):
 * revocation, state, expiry, IP, origin and scope at `now` (epoch ms). No I/O.
 */
export function judgeLookup(lookup: ValueLookupItem | undefined, request: VerifyRequest, now: number): Judgement {
  if (!lookup || lookup.entity !== 'value') return { valid: false, code: VerifyFailure.NOT_FOUND };
  const owner = ownerOf(lookup);
  const fail = (code: Exclude<VerifyFailureCode, AdmissionCode>, keyId?: string, allowedOrigin?: string, refusedKey?: CheckedKey): Judgement =>
    keyId === undefined ? { valid: false, code } : { valid: false, code, keyId, allowedOrigin, refusedKey, owner };

  const keyId = lookup.key_id;
  // The clock decides when an old value dies, whether or not clean-up has run.
  if (lookup.slot === 'previous' && (!lookup.valid_until || Date.parse(lookup.valid_until) <= now)) {
    return fail(VerifyFailure.REVOKED, keyId);
  }
  // DynamoDB TTL deletes late (up to days): an item past its TTL is gone.
  if (lookup.ttl !== undefined && lookup.ttl * 1000 <= now) return fail(VerifyFailure.NOT_FOUND);
  if (!lookup.is_active) return fail(VerifyFailure.INACTIVE, keyId);
  if (lookup.expires_at !== null && Date.parse(lookup.expires_at) <= now) return fail(VerifyFailure.EXPIRED, keyId);
  const inTransition = lookup.transition_ends_at !== undefined && lookup.transition_generation !== undefined && Date.parse(lookup.transition_ends_at) > now;
  const checked: CheckedKey = {
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
      ...(lookup.slot === 'previous' && lookup.valid_until ? { old_value_ends_at: lookup.valid_until } : {}),
      ...(lookup.slot === 'previous' && lookup.deprecated_at ? { old_value_since: lookup.deprecated_at } : {}),
      ...(lookup.identity_id ? { identity_id: lookup.identity_id } : {}),
      ...(lookup.meter_def ? { meter_def: lookup.meter_def } : {}),
    },
    transition: inTransition ? { generation: lookup.transition_generation as number, role: lookup.slot === 'previous' ? 'old' : 'new' } : undefined,
    ...(inTransition && lookup.grace_mode ? { grace: checkedGraceOf(lookup) } : {}),
    ...(inTransition && lookup.slot === 'previous' ? { source: callerNetworkOf(request.sourceIp) } : {}),
    ...(request.cost === undefined ? {} : { asked: { scopes: scopesOf(request), cost: request.cost } }),
  };
  if (!ipAllowed(lookup.ip_whitelist, request.sourceIp)) return fail(VerifyFailure.IP_NOT_ALLOWED, keyId, undefined, checked);
  if (!originOk(lookup, request)) return fail(VerifyFailure.ORIGIN_NOT_ALLOWED, keyId, undefined, checked);
  const allowedOrigin = allowedOriginOf(lookup, request);
  if (uncoveredScopes(lookup.scopes, scopesOf(request)).length > 0) {
    return fail(VerifyFailure.SCOPE_DENIED, keyId, allowedOrigin, { ...checked, allowedOrigin });
  }
  return { valid: true, checked: { ...checked, allowedOrigin } };
}

export type AdmitResult =
  | { admitted: true; ratelimit: RateLimitState; meters?: MeterFigures }
  | { admitted: false; code: AdmissionCode; ratelimit: RateLimitState; meters?: MeterFigures }
  | { admitted: false; code: 'NOT_FOUND' };

/** A recorded use as an admission. */
export function admissionOf(use: RecordUseResult): AdmitResult {
  const meters = 'meters' in use && use.meters ? { meters: use.meters } : {};
  if (use.admitted) return { admitted: true, ratelimit: use.rateLimit, ...meters };
  // No usage item: the key vanished between the read and the write.
  if (use.reason === 'NO_USAGE_ITEM') return { admitted: false, code: 'NOT_FOUND' };
  return { admitted: false, code: use.reason, ratelimit: use.rateLimit, ...meters };
}

/**
 * Records the use of a checked key and applies its rate limit (one
 * conditional UpdateItem when admitted). A use may also go out before the
 * read that decides it: early-write.ts, the only other way a use is recorded.
 */
export async function admitUse(deps: VerifyServices, checked: CheckedKey, refused = false): Promise<AdmitResult> {
  const at = deps.clock.now();
  const admission = admissionOf(await recordCheckedUse(deps, checked, at, refused));
  if (admission.admitted && !refused) await noteGraceUse(deps, checked, at);
  return admission;
}

/** The verification result of a checked key and its admission. */
export function admittedResult(checked: CheckedKey, admit: AdmitResult): VerifyResult {
  const { key, allowedOrigin } = checked;
  const meters = 'meters' in admit && admit.meters ? { meters: admit.meters } : {};
  if (admit.admitted) return { valid: true, code: 'VALID', key, ratelimit: admit.ratelimit, ...meters, allowedOrigin };
  if (admit.code === 'NOT_FOUND') return { valid: false, code: VerifyFailure.NOT_FOUND };
  return { valid: false, code: admit.code, keyId: key.id, ratelimit: admit.ratelimit, ...meters, allowedOrigin, owner: ownerOf(key) };
}

/** `admitUse` for a checked key, as a verification result. */
export async function useCheckedKey(deps: VerifyServices, checked: CheckedKey): Promise<VerifyResult> {
  return admittedResult(checked, await admitUse(deps, checked));
}

/** The verification result of a failed check (without the check's bookkeeping fields). */
export function failureOf(check: Extract<CheckResult, { valid: false }>): VerifyResult {
  return { valid: false, code: check.code, keyId: check.keyId, allowedOrigin: check.allowedOrigin, ...(check.owner ? { owner: check.owner } : {}) };
}

/** Verifies a presented value and records the use: `checkKey` then `admitUse`. */
export async function verifyKey(deps: VerifyServices, request: VerifyRequest): Promise<VerifyResult> {
  const check = await checkKey(deps, request);
  if (!check.valid) return failureOf(check);
  return useCheckedKey(deps, check.checked);
}
