/**
 * Deleting a key: every value stops authenticating at once (both lookups are
 * deleted in the same transaction), the key item becomes a hash-free
 * tombstone that DynamoDB TTL removes after 90 days, usage stays forever.
 *
 * Race-freedom: the key-item condition requires the generation read at the
 * start, so a concurrent regenerate or delete makes this one fail (409/404)
 * rather than leave a working value behind. When the key is a manager, the
 * transaction also checks that another live manager key still exists, so two
 * concurrent deletes cannot lock a team out.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { AuditEventType } from '../domain/audit-events';
import { assertEnvironmentReach, notFound } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { actorOf, type RequestMeta } from '../domain/actor';
import { assertPrecondition, type Precondition } from '../domain/revision';
import { errorField } from '../platform/observability';
import { usageFigures } from '../domain/usage-figures';
import { inLiveTransition } from '../domain/key-lifetime';
import { isActingManager, lastManagerConflict, survivingManager } from '../policy/managers';
import type { KeyItem } from '../domain/model';
import { disarmExpiry } from './expiry-schedules';
import type { ClockPort, ExpiryPort, KeysPort, ObservePort, SchedulerPort, UsagePort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';

/** A confirmed deletion, with its reason for the audit trail. */
export interface DeleteKeyInput {
  key_id: string;
  confirm_deletion: true;
  reason?: string;
}

export interface DeleteResponse {
  success: true;
  message: string;
  deleted_key: {
    id: string;
    name: string;
    key_type: KeyItem['type'];
    environment: KeyItem['environment'];
    last_four: string;
    created_at: string;
    deleted_at: string;
    deleted_by: string;
  };
  audit_info: {
    reason: string | null;
    last_used_at: string | null;
    total_requests: number;
    usage_last_30_days: number;
  };
}

/** What a delete takes: the key store, its usage (the audit figures), the clock, the schedulers it cancels. */
export type DeleteKeyPorts = KeysPort & UsagePort & ClockPort & SchedulerPort & ExpiryPort & ObservePort;

export async function deleteKey(
  services: DeleteKeyPorts,
  caller: VerifiedKey,
  input: DeleteKeyInput,
  meta: RequestMeta,
  precondition?: Precondition,
): Promise<DeleteResponse> {
  const now = services.clock.now();
  const key = await services.keys.getLiveKey(input.key_id, caller.team_id, now);
  if (!key) throw notFound(input.key_id);
  assertEnvironmentReach(caller, key.environment);
  assertPrecondition(precondition, key);

  // Keep the team manageable (policy/managers.ts).
  const survivor = isActingManager(key) ? await survivingManager(services, key, caller, now, 'deleting') : undefined;

  const reason = input.reason?.trim() ? input.reason.trim() : null;
  const usage = await services.usage.readUsage(key.id, now);
  const transitionLive = inLiveTransition(key, now);
  const deletedAt = now.toISOString();

  const outcome = await services.keys.tombstoneKey({
    key,
    deletedAt: now,
    deletedBy: caller.created_by,
    reason,
    survivor,
    audit: auditItem({
      event_type: AuditEventType.KEY_DELETED,
      occurred_at: deletedAt,
      key_id: key.id,
      team_id: key.team_id,
      actor: actorOf(caller, meta),
      key: { name: key.name, type: key.type, environment: key.environment, created_at: key.created_at, key_prefix: key.key_prefix },
      last_four: key.last_four,
      reason,
      revoked_values: transitionLive ? 2 : 1,
      session: { key_id: caller.id, request_id: meta.requestId },
      usage: usageFigures(usage),
    }),
  });
  if (!outcome.committed) {
    const current = await services.keys.getKey(key.id);
    if (!current || current.state !== 'active') throw notFound(input.key_id);
    if (outcome.survivorLost) throw lastManagerConflict('deleting');
    assertPrecondition(precondition, current);
    throw new ApiError(ErrorCode.CONFLICT, 'The key changed while this request was being processed; retry.');
  }

  await disarmExpiry(services, key.id, key.expires_at);
  // Best effort: a schedule that still fires finds a deleted key and does nothing.
  if (transitionLive && services.scheduler) {
    await services.scheduler.cancel({ keyId: key.id, generation: key.generation }).catch((error: unknown) => {
      services.observe.logger.warn('could not cancel revocation schedule', { key_id: key.id, ...errorField(error) });
    });
  }

  return {
    success: true,
    message: 'The API key has been permanently deleted; every value of it stopped working immediately.',
    deleted_key: {
      id: key.id,
      name: key.name,
      key_type: key.type,
      environment: key.environment,
      last_four: key.last_four,
      created_at: key.created_at,
      deleted_at: deletedAt,
      deleted_by: caller.created_by,
    },
    audit_info: {
      reason,
      last_used_at: usage.last_used_at,
      total_requests: usage.total_requests,
      usage_last_30_days: usage.usage_last_30_days,
    },
  };
}
