/**
 * The audit vocabulary: every event the service writes to the audit table.
 * No event carries a key value or a hash: values are identified by their
 * prefix and last four characters only.
 */
import { auditTableKeys } from './table-schema';
import { newEventId } from './ids';
import { AUDIT_TABLE_TTL_DAYS } from './retention';
import { MS_PER_DAY, epochSeconds } from './clock';
import type { Environment, KeyType } from './key-values';

export const AuditEventType = {
  KEY_CREATED: 'key.created',
  KEY_REGENERATED: 'key.regenerated',
  KEY_OLD_VALUE_EXPIRED: 'key.old_value_expired',
  KEY_DELETED: 'key.deleted',
} as const;
export type AuditEventType = (typeof AuditEventType)[keyof typeof AuditEventType];

/** Who did it, from where: the calling key and its user, and the HTTP request. */
export interface AuditActor {
  /** Acting user (the calling key's `created_by`, or the operator for bootstrap). */
  user_id: string;
  /** Calling key id; null for the bootstrap command and system events. */
  key_id: string | null;
  source_ip: string | null;
  user_agent: string | null;
  request_id: string;
}

interface AuditEventBase {
  event_id: string;
  event_type: AuditEventType;
  occurred_at: string;
  key_id: string;
  team_id: string;
  actor: AuditActor;
}

export interface KeyCreatedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_CREATED;
  key: {
    name: string;
    type: KeyType;
    environment: Environment;
    scopes: string[];
    domains: string[];
    ip_whitelist: string[];
    rate_limit: number;
    expires_at: string | null;
    key_prefix: string;
    last_four: string;
  };
  /** `api` for the create endpoint, `bootstrap` for the operator command. */
  via: 'api' | 'bootstrap';
}

export type AuditEvent = KeyCreatedEvent;

/** Distributes Omit over a union so each event keeps its own fields. */
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type NewAuditEvent = DistributiveOmit<AuditEvent, 'event_id'>;

/** The audit-table item for an event (keys, team index, TTL). */
export function auditItem(event: NewAuditEvent): Record<string, unknown> {
  const eventId = newEventId();
  const occurred = new Date(event.occurred_at);
  return {
    ...auditTableKeys.event(event.key_id, event.occurred_at, eventId),
    ...auditTableKeys.teamIndex(event.team_id, event.occurred_at, eventId),
    ...event,
    event_id: eventId,
    ttl: epochSeconds(new Date(occurred.getTime() + AUDIT_TABLE_TTL_DAYS * MS_PER_DAY)),
  };
}
