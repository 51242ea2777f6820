/**
 * End of a grace period: the old value's traces are removed and one
 * `key.old_value_expired` audit record is written. Authentication already
 * refuses the old value by the clock; this makes the state and the audit
 * trail catch up. Run by the schedule (EventBridge Scheduler in AWS, timers
 * locally); it may run late, twice, or after the key moved on.
 *
 * Race-freedom: one TransactWriteItems whose key-item condition requires the
 * state, the generation and the very previous hash read at the start
 * (compare-and-set). A concurrent delete or regenerate either commits first
 * (this one's condition fails and it reports the matching no-op), or commits
 * after it (neither of them depends on the previous value still being
 * there). Of two concurrent runs exactly one commits, so one audit record.
 */
import { systemActor } from '../domain/actor';
import { AuditEventType } from '../domain/audit-events';
import type { KeyItem } from '../domain/model';
import type { ClockPort, KeysPort, SchedulerPort, UsagePort } from '../store/ports';
import { DEFAULT_LEASE_SETTINGS } from '../domain/usage-lease';
import { graceEnd, keyGraceFacts, nextGraceCheck, useDrivenGraceOf } from '../domain/grace-modes';
import { auditItem } from '../store/entities/audit-record';

/** Which transition to end: the generation of the value that replaced the old one. */
export interface ExpireOldValueRequest {
  key_id: string;
  generation: number;
}

/** The actor of a system event (no calling key, no HTTP request). */

/**
 * What a run did. Only `expired` changed anything; every other outcome is an
 * expected no-op (the schedule outlived its purpose) and is not an error.
 */
export type ExpireOldValueOutcome =
  /** The old value was removed and the audit record written. */
  | { outcome: 'expired'; event_id: string; transition_usage: { old: number; new: number }; late_by_seconds: number }
  /** No such key, or no such transition (a regenerate whose transaction failed after scheduling). */
  | { outcome: 'not_found' }
  /** The key was deleted; delete removed every value already. */
  | { outcome: 'deleted' }
  /** The key was regenerated again; that regenerate removed this transition's old value. */
  | { outcome: 'superseded'; current_generation: number }
  /** An earlier run (or a revoke at once) already removed the old value. */
  | { outcome: 'already_expired' }
  /** Fired before the transition ends (clock skew, a replaced schedule): nothing done. */
  | { outcome: 'not_due'; transition_ends_at: string }
  /** A use-driven grace not over yet: the schedule was set again for its next check (domain/grace-modes.ts `nextGraceCheck`). */
  | { outcome: 'rearmed'; next_check_at: string };

type NoOp = Exclude<ExpireOldValueOutcome, { outcome: 'expired' } | { outcome: 'not_due' } | { outcome: 'rearmed' }>;

/** The key with its pending old value, or why the key item gives this run nothing to end. */
function pendingOrNoOp(key: KeyItem | undefined, generation: number): { pending: KeyItem & { previous_hash: string } } | { noOp: NoOp } {
  if (!key || key.entity !== 'key') return { noOp: { outcome: 'not_found' } };
  if (key.state !== 'active') return { noOp: { outcome: 'deleted' } };
  if (key.generation > generation) return { noOp: { outcome: 'superseded', current_generation: key.generation } };
  if (key.generation < generation) return { noOp: { outcome: 'not_found' } };
  const previousHash = key.previous_hash;
  if (previousHash === undefined) return { noOp: { outcome: 'already_expired' } };
  return { pending: { ...key, previous_hash: previousHash } };
}

/**
 * Ends the transition `generation` of key `key_id` if it is still pending
 * and its end has passed by `deps.clock`. `invocationId` is recorded as the
 * audit actor's request id (the Lambda request id, or a local run id).
 */
export async function expireOldValue(
  services: KeysPort & UsagePort & ClockPort & SchedulerPort,
  request: ExpireOldValueRequest,
  invocationId: string,
): Promise<ExpireOldValueOutcome> {
  const key = await services.keys.getKey(request.key_id);
  const found = pendingOrNoOp(key, request.generation);
  if ('noOp' in found) return found.noOp;
  const { pending } = found;

  const now = services.clock.now();
  // Under a use-driven grace the usage item decides the end (the old value's last use); it is read once, for the counters too.
  const usage = useDrivenGraceOf(pending) ? await services.usage.readUsage(pending.id, now) : undefined;
  const facts = usage ? keyGraceFacts(pending, usage.transition_entries) : undefined;
  const end = facts ? graceEnd(facts) : undefined;
  const endsAt = end ? new Date(end.at).toISOString() : pending.transition_ends_at;
  // An idle end waits out the uses a hot key's lease may not have written yet (verification/grace.ts): never earlier than authentication.
  const settle = end?.reason === 'idle' ? DEFAULT_LEASE_SETTINGS.flushAfterMs : 0;
  if (endsAt !== undefined && Date.parse(endsAt) + settle > now.getTime()) {
    if (!facts || !services.scheduler) return { outcome: 'not_due', transition_ends_at: endsAt };
    // A use-driven grace looks again when its end could come: once, not per verification.
    const next = new Date(Math.max(nextGraceCheck(facts, now.getTime()), end?.decided ? end.at + settle : 0)).toISOString();
    await services.scheduler.schedule({ keyId: pending.id, generation: request.generation, at: next });
    return { outcome: 'rearmed', next_check_at: next };
  }

  // Transition counters are final: authentication stops counting them at the end.
  const counted = (usage ?? (await services.usage.readUsage(pending.id, now))).transitions[`g${request.generation}`];
  const transitionUsage = { old: counted?.old ?? 0, new: counted?.new ?? 0 };

  const audit = auditItem({
    event_type: AuditEventType.KEY_OLD_VALUE_EXPIRED,
    occurred_at: now.toISOString(),
    key_id: pending.id,
    team_id: pending.team_id,
    actor: systemActor(invocationId),
    key: { name: pending.name, type: pending.type, environment: pending.environment },
    generation: request.generation,
    old_value: { key_prefix: pending.previous_key_prefix ?? '', last_four: pending.previous_last_four ?? '' },
    transition_ends_at: endsAt ?? now.toISOString(),
    reason: end?.reason ?? 'deadline',
    transition_usage: transitionUsage,
  });

  // A use-driven end earlier than the deadline becomes the key's transition end (a read then shows no transition).
  const outcome = await services.keys.expirePreviousValue(pending, request.generation, audit, end?.decided ? endsAt : undefined);
  if (!outcome.committed) {
    // Lost a race: report what the winner left behind.
    const after = pendingOrNoOp(await services.keys.getKey(request.key_id), request.generation);
    if ('noOp' in after) return after.noOp;
    // Still pending (a transaction conflict in AWS): fail, so the invocation is retried.
    throw new Error(`Expiring generation ${request.generation} of ${request.key_id} was cancelled: ${outcome.reasons.join(', ')}`);
  }

  const lateBy = endsAt === undefined ? 0 : Math.max(0, Math.round((now.getTime() - Date.parse(endsAt)) / 1000));
  return { outcome: 'expired', event_id: audit.event_id, transition_usage: transitionUsage, late_by_seconds: lateBy };
}
