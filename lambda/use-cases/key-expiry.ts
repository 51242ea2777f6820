/**
 * An expiry notice fires (a one-shot schedule): `key.expiring` or
 * `key.expired` is written once as an audit record, from which the
 * lifecycle event follows. A notice for a key since deleted, or for an
 * expiry since changed or removed, does nothing.
 */
import { AuditEventType } from '../domain/audit-events';
import { systemActor } from '../domain/actor';
import { noticeTag, noticeTime, type ExpiryRequest } from '../domain/expiry-notices';
import type { ExpiryNoticeStore } from '../store/expiry-notice-store';
import type { ClockPort, KeysPort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';

export type ExpiryNoticeOutcome =
  | { outcome: 'written'; event_type: string }
  /** Written by an earlier fire. */
  | { outcome: 'already_written' }
  /** The key is gone or deleted, or its expiry is no longer this one. */
  | { outcome: 'stale' }
  /** Fired early (a local timer, clock skew): the caller retries later. */
  | { outcome: 'not_due'; due_at: string };

export async function notifyExpiry(
  services: KeysPort & ClockPort & { readonly expiryNotices: ExpiryNoticeStore },
  request: ExpiryRequest,
  invocationId: string,
): Promise<ExpiryNoticeOutcome> {
  const key = await services.keys.getKey(request.key_id);
  if (!key || key.entity !== 'key' || key.state !== 'active' || key.expires_at !== request.expires_at) return { outcome: 'stale' };
  const now = services.clock.now();
  const dueAt = noticeTime(request.expires_at, request.notice);
  if (now.getTime() < dueAt) return { outcome: 'not_due', due_at: new Date(dueAt).toISOString() };
  if (key.expiry_notices?.includes(noticeTag(request))) return { outcome: 'already_written' };
  const eventType = request.notice === 'expired' ? AuditEventType.KEY_EXPIRED : AuditEventType.KEY_EXPIRING;
  const audit = auditItem({
    event_type: eventType,
    occurred_at: now.toISOString(),
    key_id: key.id,
    team_id: key.team_id,
    actor: systemActor(invocationId),
    key: { name: key.name, type: key.type, environment: key.environment, key_prefix: key.key_prefix, last_four: key.last_four },
    expires_at: request.expires_at,
    notice: request.notice,
  });
  const written = await services.expiryNotices.recordNotice(key, noticeTag(request), audit);
  return written ? { outcome: 'written', event_type: eventType } : { outcome: 'already_written' };
}
