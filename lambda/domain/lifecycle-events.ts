/**
 * Lifecycle events: what the service tells a team about its keys, on its
 * EventBridge bus and through webhooks (docs/webhooks.md). Each is made
 * from one audit record, so every event is also in the audit trail, and
 * its id (the `webhook-id` of every delivery) is the audit event's id.
 *
 * Thin on purpose: who, what and when, never a key value or a hash. A
 * receiver that wants the whole key reads it from the key routes.
 */
import type { WebhookEventType } from '../contract/webhooks';
import type { AuditEvent, CreditsNoticeEvent } from './audit-events';
import type { LeakAction, LeakedValue, LeakReporter } from './leaks';
import type { SignedCheckpoint } from './audit-checkpoints';

/** What `data` says about the key and the change. */
export interface KeyEventData {
  key_id: string;
  team_id: string;
  name: string;
  type: 'pk' | 'sk';
  environment: 'test' | 'live';
  /** The value's prefix and last four characters (for a regeneration, the new value's); null where the record has none. */
  key_prefix: string | null;
  last_four: string | null;
  /** Who did it: the acting user and calling key (`system` and null for schedules). */
  actor: { user_id: string; key_id: string | null };
  /** The reason given (delete, leak), why an old value ended (key.old_value_expired: first_use, idle or deadline), else null. */
  reason: string | null;
  /** key.updated, key.disabled, key.enabled: the names of the fields that changed. */
  changed_fields?: string[];
  /** key.regenerated, key.old_value_expired: when the old value stops (stopped) working. */
  old_value_ends_at?: string;
  /** key.unused: its last VALID use (null: never), and when the team's policy disables it. */
  last_valid_at?: string | null;
  disable_at?: string;
  /** key.expiring, key.expired: the key's expiry. */
  expires_at?: string;
  /** key.leaked: what the report did, which value, who reported it and where the value was found. */
  leak?: { action: LeakAction; value: LeakedValue; reporter: LeakReporter; url: string | null; source: string | null };
}

/** What `data` says about an identity and the change (identity.created, identity.updated, identity.deleted). */
export interface IdentityEventData {
  identity_id: string;
  team_id: string;
  external_id: string;
  actor: { user_id: string; key_id: string | null };
  /** identity.updated: the names of the fields that changed; else empty. */
  changed_fields: string[];
}

/** What `data` says about credits running low or out (credits.low, credits.exhausted): whose, what remained, the refill period. */
export interface CreditsEventData {
  team_id: string;
  key_id?: string;
  identity_id?: string;
  remaining: number;
  period: string | null;
}

/** audit.checkpoint: the team's signed checkpoint, as the checkpoint route answers it (domain/audit-checkpoints.ts). */
export type CheckpointEventData = SignedCheckpoint;

export interface TestEventData {
  team_id: string;
  endpoint_id: string;
  message: string;
}

/** One event as the bus carries it and a webhook delivers it (the body is `{type, timestamp, data}`). */
export interface LifecycleEvent {
  /** `msg_` and the audit event's id: the `webhook-id`, the same on every attempt. */
  id: string;
  type: WebhookEventType;
  /** When it happened (ISO 8601). */
  timestamp: string;
  team_id: string;
  data: KeyEventData | IdentityEventData | CreditsEventData | CheckpointEventData | TestEventData;
}

/** The port of what publishes events in order (the bus in AWS, the local delivery); throws when any was not published. */
export type EventPublisher = (events: readonly LifecycleEvent[]) => Promise<void>;

/** The `webhook-id` of the event made from an audit event. */
export const messageIdOf = (eventId: string) => `msg_${eventId}`;

const isCreditsNotice = (event: AuditEvent): event is CreditsNoticeEvent => event.event_type === 'credits.low' || event.event_type === 'credits.exhausted';

/** The event of an audit record; undefined for what was done to a webhook endpoint, and for credits adjusted (audited, not sent). */
export function lifecycleEventOf(event: AuditEvent): LifecycleEvent | undefined {
  // A team's settings are no key's lifecycle: audited, not delivered.
  if ('endpoint_id' in event || event.event_type === 'credits.adjusted' || event.event_type === 'team.settings_updated') return undefined;
  if (isCreditsNotice(event)) {
    const whose = event.key_id !== undefined ? { key_id: event.key_id } : { identity_id: event.identity_id as string };
    const data: CreditsEventData = { team_id: event.team_id, ...whose, remaining: event.credits.remaining, period: event.credits.period };
    return { id: messageIdOf(event.event_id), type: event.event_type, timestamp: event.occurred_at, team_id: event.team_id, data };
  }
  if ('identity_id' in event) {
    const data: IdentityEventData = {
      identity_id: event.identity_id,
      team_id: event.team_id,
      external_id: event.identity.external_id,
      actor: { user_id: event.actor.user_id, key_id: event.actor.key_id },
      changed_fields: event.changed_fields,
    };
    return { id: messageIdOf(event.event_id), type: event.event_type, timestamp: event.occurred_at, team_id: event.team_id, data };
  }
  const base = (key: { name: string; type: 'pk' | 'sk'; environment: 'test' | 'live' }, fingerprint: { key_prefix: string; last_four: string } | null) => ({
    key_id: event.key_id,
    team_id: event.team_id,
    name: key.name,
    type: key.type,
    environment: key.environment,
    key_prefix: fingerprint?.key_prefix ?? null,
    last_four: fingerprint?.last_four ?? null,
    actor: { user_id: event.actor.user_id, key_id: event.actor.key_id },
    reason: null as string | null,
  });
  let data: KeyEventData;
  switch (event.event_type) {
    case 'key.created':
      data = base(event.key, event.key);
      break;
    case 'key.regenerated':
      data = { ...base(event.key, event.new_value), old_value_ends_at: event.transition_ends_at };
      break;
    case 'key.old_value_expired':
      data = {
        ...base(event.key ?? keyOfPrefix(event.old_value.key_prefix), event.old_value),
        old_value_ends_at: event.transition_ends_at,
        // Records written before grace modes ended at their deadline.
        reason: event.reason ?? 'deadline',
      };
      break;
    case 'key.deleted':
      data = { ...base(event.key, null), key_prefix: event.key.key_prefix ?? null, last_four: event.last_four, reason: event.reason };
      break;
    case 'key.updated':
    case 'key.disabled':
    case 'key.enabled':
      data = { ...base(event.key, fingerprintOf(event.key)), changed_fields: Object.keys(event.changes).sort(), reason: event.reason ?? null };
      break;
    case 'key.unused':
      data = { ...base(event.key, event.key), last_valid_at: event.last_valid_at, disable_at: event.disable_at };
      break;
    case 'key.expiring':
    case 'key.expired':
      data = { ...base(event.key, event.key), expires_at: event.expires_at };
      break;
    case 'key.leaked':
      data = {
        ...base(event.key, event.leaked_value),
        reason: event.report.reason,
        leak: { action: event.action, value: event.value, reporter: event.report.reporter, url: event.report.url, source: event.report.source },
      };
      break;
  }
  return { id: messageIdOf(event.event_id), type: event.event_type, timestamp: event.occurred_at, team_id: event.team_id, data };
}

/** A value's fingerprint when the record has both parts (records written before lifecycle events have neither). */
function fingerprintOf(key: { key_prefix?: string; last_four?: string }): { key_prefix: string; last_four: string } | null {
  return key.key_prefix !== undefined && key.last_four !== undefined ? { key_prefix: key.key_prefix, last_four: key.last_four } : null;
}

/** A record written before expiry records named the key: its kind and environment from the value's prefix, no name. */
function keyOfPrefix(prefix: string): { name: string; type: 'pk' | 'sk'; environment: 'test' | 'live' } {
  return { name: '', type: /(^|_)pk_/.test(prefix) ? 'pk' : 'sk', environment: prefix.includes('_live') ? 'live' : 'test' };
}

/** The body every delivery of `event` sends (the same bytes on every attempt). */
export function payloadOf(event: LifecycleEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}
