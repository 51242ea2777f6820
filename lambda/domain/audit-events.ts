/**
 * The audit vocabulary: every event the service writes to the audit table.
 * No event carries a key value or a hash: values are identified by their
 * prefix and last four characters only. The schema that reads events back
 * (the archiver, the audit route) is in audit-event-schema.ts, so the
 * functions that only write events neither carry nor build it.
 */
import type { CreditRefill, NamedLimit } from './meters';
import type { Environment, KeyType } from './key-values';
import type { KeyConfiguration, OnLeak } from './model';
import type { LeakAction, LeakedValue, LeakReport } from './leaks';
import { EDITABLE_FIELDS } from './editable-fields';

export const AuditEventType = {
  KEY_CREATED: 'key.created',
  KEY_REGENERATED: 'key.regenerated',
  KEY_OLD_VALUE_EXPIRED: 'key.old_value_expired',
  KEY_DELETED: 'key.deleted',
  KEY_UPDATED: 'key.updated',
  KEY_DISABLED: 'key.disabled',
  KEY_ENABLED: 'key.enabled',
  KEY_EXPIRING: 'key.expiring',
  KEY_EXPIRED: 'key.expired',
  KEY_LEAKED: 'key.leaked',
  KEY_UNUSED: 'key.unused',
  TEAM_SETTINGS_UPDATED: 'team.settings_updated',
  WEBHOOK_ENDPOINT_CREATED: 'webhook_endpoint.created',
  WEBHOOK_ENDPOINT_UPDATED: 'webhook_endpoint.updated',
  WEBHOOK_ENDPOINT_DELETED: 'webhook_endpoint.deleted',
  WEBHOOK_SECRET_ROTATED: 'webhook_endpoint.secret_rotated',
  WEBHOOK_ENDPOINT_DISABLED: 'webhook_endpoint.disabled',
  WEBHOOK_TEST_SENT: 'webhook_endpoint.test_sent',
  WEBHOOK_REDELIVERED: 'webhook_endpoint.redelivered',
  IDENTITY_CREATED: 'identity.created',
  IDENTITY_UPDATED: 'identity.updated',
  IDENTITY_DELETED: 'identity.deleted',
  CREDITS_ADJUSTED: 'credits.adjusted',
  CREDITS_LOW: 'credits.low',
  CREDITS_EXHAUSTED: 'credits.exhausted',
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
  /** The team's hash chain (domain/audit-chain.ts): absent on records written before it began. */
  seq?: number;
  prev_hash?: string;
  hash?: string;
  chain_start?: string;
}

export interface KeyCreatedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_CREATED;
  /** `on_leak` is absent from records written before it existed. */
  key: Omit<KeyConfiguration, 'team_id' | 'created_by' | 'meter_def'> &
    ValueFingerprint & { on_leak?: OnLeak; limits?: NamedLimit[]; credits?: { remaining: number; refill: CreditRefill | null } };
  /** `api` for the create endpoint, `bootstrap` for the operator command. */
  via: 'api' | 'bootstrap';
}

/** A value identified without revealing it. */
export interface ValueFingerprint {
  key_prefix: string;
  last_four: string;
}

export interface KeyRegeneratedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_REGENERATED;
  key: { name: string; type: KeyType; environment: Environment };
  /** Generation of the new value (1 is the created value). */
  generation: number;
  old_value: ValueFingerprint;
  new_value: ValueFingerprint;
  grace_period_days: number;
  revoke_immediately: boolean;
  /** A use-driven grace (domain/grace-modes.ts); absent for `fixed`. */
  grace_mode?: 'first_use' | 'until_idle';
  grace_minutes?: number;
  /** When the old value stops authenticating at the latest (= occurred_at when revoked at once). */
  transition_ends_at: string;
  /** Usage of the key up to the regeneration. */
  usage: { total_requests: number; usage_last_30_days: number; last_used_at: string | null };
}

export interface KeyOldValueExpiredEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_OLD_VALUE_EXPIRED;
  /** The key (absent from records written before lifecycle events). */
  key?: { name: string; type: KeyType; environment: Environment };
  generation: number;
  old_value: ValueFingerprint;
  transition_ends_at: string;
  /** Why it ended then: the new value's first use, the old value's idleness, or the deadline (absent from records written before grace modes). */
  reason?: 'first_use' | 'idle' | 'deadline';
  /** Uses of each value during the transition. */
  transition_usage: { old: number; new: number };
}

export interface KeyDeletedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_DELETED;
  /** `key_prefix`: absent from records written before lifecycle events. */
  key: { name: string; type: KeyType; environment: Environment; created_at: string; key_prefix?: string };
  last_four: string;
  reason: string | null;
  /** Whether a transition was live, so an old value was revoked too. */
  revoked_values: number;
  /** Session information: the calling key and the request. */
  session: { key_id: string | null; request_id: string };
  usage: { total_requests: number; usage_last_30_days: number; last_used_at: string | null };
}

/** A field's value in an audit record: a key field's, or a list of named limits and a credits setting (domain/meters.ts). */
export type FieldValue = string | number | boolean | null | string[] | unknown[] | Record<string, unknown>;

/** The fields a key.updated record may name: the editable ones, and its limits and credits. */
export const AUDITED_KEY_FIELDS = [...EDITABLE_FIELDS, 'limits', 'credits'] as const;
export type AuditedKeyField = (typeof AUDITED_KEY_FIELDS)[number];

export interface KeyUpdatedEvent extends AuditEventBase {
  /** `key.disabled` / `key.enabled` when `is_active` changed, otherwise `key.updated`. */
  event_type: typeof AuditEventType.KEY_UPDATED | typeof AuditEventType.KEY_DISABLED | typeof AuditEventType.KEY_ENABLED;
  /** The value's fingerprint: absent from records written before lifecycle events. */
  key: { name: string; type: KeyType; environment: Environment } & Partial<ValueFingerprint>;
  /** Each changed field: its value before and after. */
  changes: Partial<Record<AuditedKeyField, { before: FieldValue; after: FieldValue }>>;
  /** Why the service itself disabled it: `unused` (the team's policy, use-cases/unused-keys.ts). Absent for a caller's change. */
  reason?: 'unused';
}

/** A warning of the team's unused-key policy: the key will be disabled at `disable_at` unless it is used (VALID) before. */
export interface KeyUnusedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_UNUSED;
  key: { name: string; type: KeyType; environment: Environment } & ValueFingerprint;
  /** Its last VALID use (null: never used; counted from its creation). */
  last_valid_at: string | null;
  disable_at: string;
  disable_unused_after_days: number;
}

/** A team's settings changed (use-cases/team-settings.ts), recorded on the calling key's trail and the team's. */
export interface TeamSettingsUpdatedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.TEAM_SETTINGS_UPDATED;
  changes: { disable_unused_after_days: { before: number | null; after: number | null } };
}

/** A warning before `expires_at` (`key.expiring`, 7 days and 1 day ahead) or the expiry itself (`key.expired`), written by the expiry schedule. */
export interface KeyExpiryEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_EXPIRING | typeof AuditEventType.KEY_EXPIRED;
  key: { name: string; type: KeyType; environment: Environment } & ValueFingerprint;
  expires_at: string;
  /** Which notice: `7d` or `1d` ahead, or `expired`. */
  notice: '7d' | '1d' | 'expired';
}

/** A report that one of the key's values leaked (GitHub secret scanning, or the team), and what it did (domain/leaks.ts). */
export interface KeyLeakedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_LEAKED;
  key: { name: string; type: KeyType; environment: Environment };
  /** The reported value's fingerprint. */
  leaked_value: ValueFingerprint;
  /** `current`, or `previous`: the old value of a transition. */
  value: LeakedValue;
  /** The key's `on_leak` when the report came. */
  on_leak: OnLeak;
  action: LeakAction;
  report: LeakReport;
}

/**
 * What was done to a webhook endpoint, by a manager key or by the service
 * (`webhook_endpoint.disabled` after a 410 or five days of failures). Kept
 * under the endpoint (`WEBHOOK#<id>`), apart from the key audit trail.
 */
export interface WebhookEndpointEvent extends Omit<AuditEventBase, 'key_id' | 'event_type'> {
  event_type:
    | typeof AuditEventType.WEBHOOK_ENDPOINT_CREATED
    | typeof AuditEventType.WEBHOOK_ENDPOINT_UPDATED
    | typeof AuditEventType.WEBHOOK_ENDPOINT_DELETED
    | typeof AuditEventType.WEBHOOK_SECRET_ROTATED
    | typeof AuditEventType.WEBHOOK_ENDPOINT_DISABLED
    | typeof AuditEventType.WEBHOOK_TEST_SENT
    | typeof AuditEventType.WEBHOOK_REDELIVERED;
  endpoint_id: string;
  endpoint: { url: string; events: string[]; is_active: boolean };
  /** The fields a change touched (update), else empty. */
  changed_fields: string[];
  /** Why (a disable), or the event redelivered; else null. */
  reason: string | null;
}

/** What was done to an identity. Kept under the identity (`IDENTITY#<id>`), apart from the key audit trail. */
export interface IdentityEvent extends Omit<AuditEventBase, 'key_id' | 'event_type'> {
  event_type: typeof AuditEventType.IDENTITY_CREATED | typeof AuditEventType.IDENTITY_UPDATED | typeof AuditEventType.IDENTITY_DELETED;
  identity_id: string;
  identity: { external_id: string };
  /** The fields a change touched (update), else empty. */
  changed_fields: string[];
}

/** Credits adjusted by hand on a key (`key_id`) or an identity (`identity_id`). */
export interface CreditsAdjustedEvent extends Omit<AuditEventBase, 'key_id' | 'event_type'> {
  event_type: typeof AuditEventType.CREDITS_ADJUSTED;
  key_id?: string;
  identity_id?: string;
  /** `add`: a grant (expiring at `expires_at`, or never); `set`: what is left of the refill allowance. */
  adjustment: { add?: number; set?: number; expires_at: string | null; reason: string };
}

/**
 * Credits of a key (`key_id`) or an identity (`identity_id`) fell below 10 %
 * of their last refill or balance set (`credits.low`), or ran out
 * (`credits.exhausted`): each at most once per refill period (without a
 * refill, once per balance set). Written by the verification that crossed.
 */
export interface CreditsNoticeEvent extends Omit<AuditEventBase, 'key_id' | 'event_type'> {
  event_type: typeof AuditEventType.CREDITS_LOW | typeof AuditEventType.CREDITS_EXHAUSTED;
  key_id?: string;
  identity_id?: string;
  /** What remained after that verification, and the refill period (null without a refill). */
  credits: { remaining: number; period: string | null };
}

/** The events about keys: each names its key. */
export type KeyAuditEvent =
  | KeyCreatedEvent
  | KeyRegeneratedEvent
  | KeyOldValueExpiredEvent
  | KeyDeletedEvent
  | KeyUpdatedEvent
  | KeyExpiryEvent
  | KeyLeakedEvent
  | KeyUnusedEvent
  | TeamSettingsUpdatedEvent;
export type AuditEvent = KeyAuditEvent | WebhookEndpointEvent | IdentityEvent | CreditsAdjustedEvent | CreditsNoticeEvent;

/** Distributes Omit over a union so each event keeps its own fields. */
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type NewAuditEvent = DistributiveOmit<AuditEvent, 'event_id'>;

/** An audit-table item: the event plus its keys, team index and TTL. */
export type AuditRecord = Record<string, unknown> & { readonly event_id: string };
