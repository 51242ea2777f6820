/**
 * Regenerating a key's value, keeping its configuration.
 *
 * Race-freedom: the whole change is one TransactWriteItems whose key-item
 * condition requires the generation read at the start (compare-and-set).
 * Of concurrent regenerates (or a regenerate racing a delete) exactly one
 * commits; the others fail their condition and get 409 (or 404 when a delete
 * won). The old value becomes a `previous` lookup valid until
 * `transition_ends_at`, or is deleted in the same transaction when revoked
 * at once.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { AuditEventType } from '../domain/audit-events';
import { assertEnvironmentReach, notFound } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { actorOf, type RequestMeta } from '../domain/actor';
import { idempotencyRecord } from '../store/idempotency-record';
import { assertPrecondition, type Precondition } from '../domain/revision';
import type { IdempotentAnswer } from './create-key';
import { MS_PER_DAY } from '../platform/clock';
import { errorField } from '../platform/observability';
import { usageFigures } from '../domain/usage-figures';
import { inLiveTransition } from '../domain/key-lifetime';
import { withUseDrivenEnd } from '../domain/key-view';
import { generateRegeneratedValue, hashKeyValue, keyPrefixOf, lastFourOf, shortPrefix } from '../domain/key-values';
import type { KeyItem } from '../domain/model';
import type { ClockPort, KeysPort, ObservePort, SchedulerPort, SettingsPort, UsagePort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';
import { firstGraceCheck, useDrivenGraceOf, type GraceMode, type UseDrivenGrace } from '../domain/grace-modes';

/** A roll of a key's value: the old value lives `grace_period_days` more, or dies at once. */
export interface RegenerateKeyInput {
  key_id: string;
  grace_period_days: number;
  revoke_immediately: boolean;
  /** Absent when not sent (the answer then keeps its seed shape); `grace_minutes` comes with a use-driven mode. */
  grace_mode?: GraceMode;
  grace_minutes?: number;
}

export interface RegenerateResponse {
  success: true;
  new_key: string;
  key_info: {
    id: string;
    name: string;
    key_type: KeyItem['type'];
    environment: KeyItem['environment'];
    key_prefix: string;
    last_four: string;
    transition_ends_at: string;
    regenerated_at: string;
  };
  migration_info: {
    old_key_expires_at: string;
    grace_period_days: number;
    both_keys_valid: boolean;
    /** Only when the request named a grace mode. */
    grace_mode?: GraceMode;
    grace_minutes?: number;
    /** Only when a use-driven grace is shorter than the platform stages' authorizer cache TTL (uses it answers are not seen). */
    warnings?: string[];
  };
}

function inTransitionConflict(key: KeyItem): ApiError {
  return new ApiError(ErrorCode.CONFLICT, `The key is already in a transition period until ${key.transition_ends_at}; regenerate it after that.`, [
    { field: 'key_id', issue: `in transition until ${key.transition_ends_at}` },
  ]);
}

/** What a regeneration takes: the key store, its usage, the clock, the pepper, the scheduler of the grace period's end. */
export type RegenerateKeyPorts = KeysPort & UsagePort & ClockPort & SettingsPort<'pepper' | 'authorizerCacheTtlSeconds'> & SchedulerPort & ObservePort;

export async function regenerateKey(
  services: RegenerateKeyPorts,
  caller: VerifiedKey,
  input: RegenerateKeyInput,
  meta: RequestMeta,
  idempotent?: IdempotentAnswer<Omit<RegenerateResponse, 'new_key'> & { new_key: null }>,
  precondition?: Precondition,
): Promise<RegenerateResponse> {
  const now = services.clock.now();
  const key = await services.keys.getLiveKey(input.key_id, caller.team_id, now);
  if (!key || !key.current_hash) throw notFound(input.key_id);
  assertEnvironmentReach(caller, key.environment);
  assertPrecondition(precondition, key);
  const usage = await services.usage.readUsage(key.id, now);
  // A use-driven grace may have ended before its deadline (clean-up follows within minutes): no conflict then.
  if (inLiveTransition(withUseDrivenEnd(key, usage), now)) throw inTransitionConflict(key);

  const revokeNow = input.revoke_immediately;
  const graceDays = revokeNow ? 0 : input.grace_period_days;
  const regeneratedAt = now.toISOString();
  const endsAt = new Date(now.getTime() + graceDays * MS_PER_DAY).toISOString();
  const generation = key.generation + 1;
  const value = generateRegeneratedValue(key.type, key.environment, key.id);
  const before = { ...key, current_hash: key.current_hash };
  const after = {
    ...before,
    generation,
    current_hash: hashKeyValue(value, services.settings.pepper),
    key_prefix: keyPrefixOf(value),
    last_four: lastFourOf(value),
    regenerated_at: regeneratedAt,
    transition_ends_at: endsAt,
  };
  const grace = useDrivenGraceOf(input);
  const transition = revokeNow ? undefined : { endsAt, generation, ...(grace ? { grace, oldHash: before.current_hash } : {}) };

  // Scheduled before the commit: if scheduling fails nothing has changed; a
  // schedule whose transaction then fails finds nothing to do when it fires.
  // A use-driven grace is first looked at when it could end at the earliest (it re-arms itself from there).
  const checkAt = grace ? new Date(firstGraceCheck(now.getTime(), Date.parse(endsAt), grace)).toISOString() : endsAt;
  if (transition) await scheduleGraceEnd(services, key.id, { generation, endsAt: checkAt });

  const warnings = cacheWarnings(grace, services.settings.authorizerCacheTtlSeconds);
  const response = responseOf(key, value, { lastFour: after.last_four, endsAt, regeneratedAt, graceDays, revokeNow, mode: input.grace_mode, grace, warnings });
  const answer = idempotent ? idempotencyRecord(idempotent.claim, idempotent.status, idempotent.bodyOf({ ...response, new_key: null }), now) : undefined;

  const outcome = await services.keys.rotateValue({
    before,
    after,
    transition,
    audit: auditItem({
      event_type: AuditEventType.KEY_REGENERATED,
      occurred_at: regeneratedAt,
      key_id: key.id,
      team_id: key.team_id,
      actor: actorOf(caller, meta),
      key: { name: key.name, type: key.type, environment: key.environment },
      generation,
      old_value: { key_prefix: before.key_prefix, last_four: before.last_four },
      new_value: { key_prefix: after.key_prefix, last_four: after.last_four },
      grace_period_days: graceDays,
      revoke_immediately: revokeNow,
      ...(grace ?? {}),
      transition_ends_at: endsAt,
      usage: usageFigures(usage),
    }),
    idempotency: answer,
  });
  // Lost a race: another regenerate or a delete committed first.
  if (!outcome.committed) throw await lostRace(services, caller, key.id, precondition);
  return response;
}

/** The end of a grace period scheduled, or 503 with nothing changed. */
async function scheduleGraceEnd(services: RegenerateKeyPorts, keyId: string, transition: { endsAt: string; generation: number }): Promise<void> {
  if (!services.scheduler) return;
  try {
    await services.scheduler.schedule({ keyId, generation: transition.generation, at: transition.endsAt });
  } catch (error) {
    services.observe.logger.error('could not schedule the end of a grace period', { key_id: keyId, generation: transition.generation, ...errorField(error) });
    throw new ApiError(ErrorCode.SERVICE_UNAVAILABLE, 'Could not schedule the end of the grace period; nothing was changed. Retry shortly.', [], {
      'Retry-After': '1',
    });
  }
}

/** What a regenerate that lost its race answers: 404 gone, 412 changed under If-Match, 409 in a transition or changed. */
async function lostRace(services: RegenerateKeyPorts, caller: VerifiedKey, keyId: string, precondition: Precondition | undefined): Promise<ApiError> {
  const current = await services.keys.getLiveKey(keyId, caller.team_id, services.clock.now());
  if (!current) return notFound(keyId);
  assertPrecondition(precondition, current);
  if (inLiveTransition(current, services.clock.now())) return inTransitionConflict(current);
  return new ApiError(ErrorCode.CONFLICT, 'The key changed while this request was being processed; retry.');
}

/** The answer of a regenerate: the new value (once), the key, and how long the old value lives. */
function responseOf(
  key: KeyItem,
  value: string,
  rolled: {
    lastFour: string;
    endsAt: string;
    regeneratedAt: string;
    graceDays: number;
    revokeNow: boolean;
    mode?: GraceMode;
    grace?: UseDrivenGrace;
    warnings: string[];
  },
): RegenerateResponse {
  return {
    success: true,
    new_key: value,
    key_info: {
      id: key.id,
      name: key.name,
      key_type: key.type,
      environment: key.environment,
      key_prefix: shortPrefix(key.type, key.environment),
      last_four: rolled.lastFour,
      transition_ends_at: rolled.endsAt,
      regenerated_at: rolled.regeneratedAt,
    },
    migration_info: {
      old_key_expires_at: rolled.endsAt,
      grace_period_days: rolled.graceDays,
      both_keys_valid: !rolled.revokeNow,
      ...(rolled.mode ? { grace_mode: rolled.mode } : {}),
      ...(rolled.grace ? { grace_minutes: rolled.grace.grace_minutes } : {}),
      ...(rolled.warnings.length > 0 ? { warnings: rolled.warnings } : {}),
    },
  };
}

/**
 * A use-driven grace shorter than the platform stages' authorizer cache TTL:
 * uses the cache answers are never seen, and a platform route keeps allowing
 * an old value the service refused until its cached entry expires.
 */
function cacheWarnings(grace: UseDrivenGrace | undefined, cacheTtlSeconds: number | undefined): string[] {
  if (!grace || !cacheTtlSeconds || cacheTtlSeconds <= grace.grace_minutes * 60) return [];
  return [
    `The platform stages' authorizer cache TTL (${cacheTtlSeconds} s) is longer than grace_minutes (${grace.grace_minutes} min): ` +
      'uses answered from the cache are not seen, and a cached old value stays allowed until its entry expires.',
  ];
}
