/**
 * The audit vocabulary: every event the service writes to the audit table.
 * No event carries a key value or a hash: values are identified by their
 * prefix and last four characters only.
 */
import * as z from 'zod/mini';
import { auditTableKeys } from '../../contract/tables';
import { KEY_ID_PATTERN, newEventId } from '../platform/ids';
import { AUDIT_TABLE_TTL_DAYS } from '../../contract/retention';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import type { Environment, KeyType } from '../keys/key-values';
import type { KeyConfiguration } from '../keys/model';

export const AuditEventType = {
  KEY_CREATED: 'key.created',
  KEY_REGENERATED: 'key.regenerated',
  KEY_OLD_VALUE_EXPIRED: 'key.old_value_expired',
  KEY_DELETED: 'key.deleted',
  KEY_UPDATED: 'key.updated',
  KEY_DISABLED: 'key.disabled',
  KEY_ENABLED: 'key.enabled',
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
  key: Omit<KeyConfiguration, 'team_id' | 'created_by'> & ValueFingerprint;
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
  /** When the old value stops authenticating (= occurred_at when revoked at once). */
  transition_ends_at: string;
  /** Usage of the key up to the regeneration. */
  usage: { total_requests: number; usage_last_30_days: number; last_used_at: string | null };
}

export interface KeyOldValueExpiredEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_OLD_VALUE_EXPIRED;
  generation: number;
  old_value: ValueFingerprint;
  transition_ends_at: string;
  /** Uses of each value during the transition. */
  transition_usage: { old: number; new: number };
}

export interface KeyDeletedEvent extends AuditEventBase {
  event_type: typeof AuditEventType.KEY_DELETED;
  key: { name: string; type: KeyType; environment: Environment; created_at: string };
  last_four: string;
  reason: string | null;
  /** Whether a transition was live, so an old value was revoked too. */
  revoked_values: number;
  /** Session information: the calling key and the request. */
  session: { key_id: string | null; request_id: string };
  usage: { total_requests: number; usage_last_30_days: number; last_used_at: string | null };
}

/** The fields an update may change; their before and after values are audited. */
export const EDITABLE_FIELDS = ['name', 'description', 'scopes', 'domains', 'ip_whitelist', 'rate_limit', 'expires_at', 'is_active'] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];
export type FieldValue = string | number | boolean | null | string[];

export interface KeyUpdatedEvent extends AuditEventBase {
  /** `key.disabled` / `key.enabled` when `is_active` changed, otherwise `key.updated`. */
  event_type: typeof AuditEventType.KEY_UPDATED | typeof AuditEventType.KEY_DISABLED | typeof AuditEventType.KEY_ENABLED;
  key: { name: string; type: KeyType; environment: Environment };
  /** Each changed field: its value before and after. */
  changes: Partial<Record<EditableField, { before: FieldValue; after: FieldValue }>>;
}

export type AuditEvent = KeyCreatedEvent | KeyRegeneratedEvent | KeyOldValueExpiredEvent | KeyDeletedEvent | KeyUpdatedEvent;

/** Distributes Omit over a union so each event keeps its own fields. */
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type NewAuditEvent = DistributiveOmit<AuditEvent, 'event_id'>;

/** An audit-table item: the event plus its keys, team index and TTL. */
export type AuditRecord = Record<string, unknown> & { readonly event_id: string };

/** The audit-table item for an event (keys, team index, TTL). */
export function auditItem(event: NewAuditEvent): AuditRecord {
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

// ---------------------------------------------------------------------------
// Runtime validation: what the audit archiver accepts as an event.

/**
 * Compile-time tie between a schema and an event interface: the schema's
 * output and the interface must be assignable both ways, so a field added to
 * an interface without its schema (or the reverse) fails `tsc`.
 */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function schemaFor<T>() {
  return <S extends z.ZodMiniType>(schema: S & (SameShape<z.output<S>, T> extends true ? unknown : 'schema and interface differ')): S =>
    schema;
}

// Formats are checked only where the archive depends on them: `event_id` and
// `key_id` name files and partitions, `occurred_at` picks the date partition.
const ulid = z.string().check(z.regex(KEY_ID_PATTERN));
const instant = z.iso.datetime({ offset: true });
const keyType = z.enum(['pk', 'sk']);
const environment = z.enum(['test', 'live']);
const count = z.int().check(z.nonnegative());
const usageSchema = z.strictObject({ total_requests: count, usage_last_30_days: count, last_used_at: z.nullable(instant) });
const fingerprintSchema = schemaFor<ValueFingerprint>()(z.strictObject({ key_prefix: z.string(), last_four: z.string() }));
const actorSchema = schemaFor<AuditActor>()(
  z.strictObject({
    user_id: z.string(),
    key_id: z.nullable(z.string()),
    source_ip: z.nullable(z.string()),
    user_agent: z.nullable(z.string()),
    request_id: z.string(),
  }),
);
const base = {
  event_id: ulid,
  occurred_at: instant,
  key_id: ulid,
  team_id: z.string().check(z.minLength(1)),
  actor: actorSchema,
};

const keyCreatedSchema = schemaFor<KeyCreatedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_CREATED),
    key: z.strictObject({
      name: z.string(),
      type: keyType,
      environment,
      scopes: z.array(z.string()),
      domains: z.array(z.string()),
      ip_whitelist: z.array(z.string()),
      rate_limit: z.number(),
      expires_at: z.nullable(instant),
      key_prefix: z.string(),
      last_four: z.string(),
    }),
    via: z.enum(['api', 'bootstrap']),
  }),
);

const keyRegeneratedSchema = schemaFor<KeyRegeneratedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_REGENERATED),
    key: z.strictObject({ name: z.string(), type: keyType, environment }),
    generation: z.int().check(z.positive()),
    old_value: fingerprintSchema,
    new_value: fingerprintSchema,
    grace_period_days: count,
    revoke_immediately: z.boolean(),
    transition_ends_at: instant,
    usage: usageSchema,
  }),
);

const keyOldValueExpiredSchema = schemaFor<KeyOldValueExpiredEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_OLD_VALUE_EXPIRED),
    generation: z.int().check(z.positive()),
    old_value: fingerprintSchema,
    transition_ends_at: instant,
    transition_usage: z.strictObject({ old: count, new: count }),
  }),
);

const keyDeletedSchema = schemaFor<KeyDeletedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_DELETED),
    key: z.strictObject({ name: z.string(), type: keyType, environment, created_at: instant }),
    last_four: z.string(),
    reason: z.nullable(z.string()),
    revoked_values: count,
    session: z.strictObject({ key_id: z.nullable(z.string()), request_id: z.string() }),
    usage: usageSchema,
  }),
);

const fieldValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);
const keyUpdatedSchema = schemaFor<KeyUpdatedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.enum([AuditEventType.KEY_UPDATED, AuditEventType.KEY_DISABLED, AuditEventType.KEY_ENABLED]),
    key: z.strictObject({ name: z.string(), type: keyType, environment }),
    changes: z.partialRecord(z.enum(EDITABLE_FIELDS), z.strictObject({ before: fieldValue, after: fieldValue })),
  }),
);

/**
 * Every audit event, strictly: an unknown field makes a record invalid
 * rather than archived unchecked, so nothing (a hash, a value) can ride
 * along into the archive unnoticed. Parsing returns the fields in the
 * order declared here, whatever order the stored item had.
 */
export const auditEventSchema = z.discriminatedUnion('event_type', [
  keyCreatedSchema,
  keyRegeneratedSchema,
  keyOldValueExpiredSchema,
  keyDeletedSchema,
  keyUpdatedSchema,
]);

/** Audit-table attributes that are storage, not event: keys, index keys, TTL. */
export const AUDIT_STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'ttl'] as const;

/** Why a value is not an audit event: each problem's path and code (never the value). */
export interface AuditEventProblem {
  path: string;
  code: string;
}

export type ParsedAuditEvent = { ok: true; event: AuditEvent } | { ok: false; problems: AuditEventProblem[] };

/**
 * Reads an audit-table item (or a bare event) as an event: the storage
 * attributes are dropped, the rest must match one event type exactly.
 */
export function parseAuditEvent(item: unknown): ParsedAuditEvent {
  let candidate = item;
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const copy: Record<string, unknown> = { ...(item as Record<string, unknown>) };
    for (const name of AUDIT_STORAGE_ATTRIBUTES) delete copy[name];
    candidate = copy;
  }
  const result = auditEventSchema.safeParse(candidate);
  if (result.success) return { ok: true, event: result.data as AuditEvent };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', code: issue.code })),
  };
}
