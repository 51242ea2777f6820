/**
 * Runtime validation of audit events: what the audit archiver accepts as an
 * event, and how the audit route reads stored records back. Only the
 * functions that read events import it (the archiver, the audit trail route);
 * the interfaces and the writer's `auditItem` are in audit-events.ts.
 */
import * as z from 'zod/mini';
import { KEY_ID_PATTERN } from '../platform/ids';
import { AUDITED_KEY_FIELDS, type CreditsAdjustedEvent, type CreditsNoticeEvent } from './audit-events';
import { ON_LEAK_VALUES } from './model';
import { LEAK_ACTIONS } from './leaks';
import { AUDIT_STORAGE_ATTRIBUTES } from './audit-chain';
import {
  AuditEventType,
  type AuditActor,
  type AuditEvent,
  type KeyCreatedEvent,
  type KeyDeletedEvent,
  type KeyExpiryEvent,
  type KeyLeakedEvent,
  type KeyUnusedEvent,
  type TeamSettingsUpdatedEvent,
  type WebhookEndpointEvent,
  type IdentityEvent,
  type KeyOldValueExpiredEvent,
  type KeyRegeneratedEvent,
  type KeyUpdatedEvent,
  type ValueFingerprint,
} from './audit-events';

/**
 * Compile-time tie between a schema and an event interface: the schema's
 * output and the interface must be assignable both ways, so a field added to
 * an interface without its schema (or the reverse) fails `tsc`.
 */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function schemaFor<T>() {
  return <S extends z.ZodMiniType>(schema: S & (SameShape<z.output<S>, T> extends true ? unknown : 'schema and interface differ')): S => schema;
}

// Formats are checked only where the archive depends on them: `event_id` and
// `key_id` name files and partitions, `occurred_at` picks the date partition.
const ulid = z.string().check(z.regex(KEY_ID_PATTERN));
const instant = z.iso.datetime({ offset: true });
const keyType = z.enum(['pk', 'sk']);
const environment = z.enum(['test', 'live']);

/**
 * A key's name, kind and restrictions, as an audit event records them and a
 * read answers them: `type` and `environment` are the caller's (the OpenAPI
 * document's carry descriptions).
 */
export function keyNameAndRestrictions<T extends z.ZodMiniType, E extends z.ZodMiniType>(type: T, environmentSchema: E) {
  return {
    name: z.string(),
    type,
    environment: environmentSchema,
    scopes: z.array(z.string()),
    domains: z.array(z.string()),
    ip_whitelist: z.array(z.string()),
  };
}
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
const keyWithFingerprint = z.strictObject({ name: z.string(), type: keyType, environment, key_prefix: z.string(), last_four: z.string() });
const hex64 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** The chain's fields (domain/audit-chain.ts): on every record written since the team's chain began, absent before. */
const chain = { seq: z.optional(z.int().check(z.positive())), prev_hash: z.optional(hex64), hash: z.optional(hex64), chain_start: z.optional(instant) };
const base = { event_id: ulid, occurred_at: instant, key_id: ulid, team_id: z.string().check(z.minLength(1)), actor: actorSchema, ...chain };

const keyCreatedSchema = schemaFor<KeyCreatedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_CREATED),
    key: z.strictObject({
      ...keyNameAndRestrictions(keyType, environment),
      rate_limit: z.number(),
      expires_at: z.nullable(instant),
      on_leak: z.optional(z.enum(ON_LEAK_VALUES)),
      key_prefix: z.string(),
      last_four: z.string(),
      identity_id: z.optional(z.string()),
      limits: z.optional(z.array(z.strictObject({ name: z.string(), limit: z.number(), window_seconds: z.number(), scope: z.optional(z.string()) }))),
      credits: z.optional(
        z.strictObject({
          remaining: z.number(),
          refill: z.nullable(z.strictObject({ interval: z.enum(['daily', 'monthly']), amount: z.number(), day_of_month: z.optional(z.number()) })),
        }),
      ),
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
    grace_mode: z.optional(z.enum(['first_use', 'until_idle'])),
    grace_minutes: z.optional(z.int().check(z.minimum(1), z.maximum(10_080))),
    transition_ends_at: instant,
    usage: usageSchema,
  }),
);
const keyOldValueExpiredSchema = schemaFor<KeyOldValueExpiredEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_OLD_VALUE_EXPIRED),
    key: z.optional(z.strictObject({ name: z.string(), type: keyType, environment })),
    generation: z.int().check(z.positive()),
    old_value: fingerprintSchema,
    transition_ends_at: instant,
    reason: z.optional(z.enum(['first_use', 'idle', 'deadline'])),
    transition_usage: z.strictObject({ old: count, new: count }),
  }),
);
const keyDeletedSchema = schemaFor<KeyDeletedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_DELETED),
    key: z.strictObject({ name: z.string(), type: keyType, environment, created_at: instant, key_prefix: z.optional(z.string()) }),
    last_four: z.string(),
    reason: z.nullable(z.string()),
    revoked_values: count,
    session: z.strictObject({ key_id: z.nullable(z.string()), request_id: z.string() }),
    usage: usageSchema,
  }),
);
const fieldValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);
const keyUpdatedSchema = schemaFor<KeyUpdatedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.enum([AuditEventType.KEY_UPDATED, AuditEventType.KEY_DISABLED, AuditEventType.KEY_ENABLED]),
    key: z.strictObject({ name: z.string(), type: keyType, environment, key_prefix: z.optional(z.string()), last_four: z.optional(z.string()) }),
    changes: z.partialRecord(z.enum(AUDITED_KEY_FIELDS), z.strictObject({ before: fieldValue, after: fieldValue })),
    reason: z.optional(z.literal('unused')),
  }),
);
const policyDays = z.int().check(z.minimum(1));
const keyUnusedSchema = schemaFor<KeyUnusedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_UNUSED),
    key: keyWithFingerprint,
    last_valid_at: z.nullable(instant),
    disable_at: instant,
    disable_unused_after_days: policyDays,
  }),
);
const daysChange = z.strictObject({ before: z.nullable(policyDays), after: z.nullable(policyDays) });
const teamSettingsUpdatedSchema = schemaFor<TeamSettingsUpdatedEvent>()(
  z.strictObject({ ...base, event_type: z.literal(AuditEventType.TEAM_SETTINGS_UPDATED), changes: z.strictObject({ disable_unused_after_days: daysChange }) }),
);
const keyExpirySchema = schemaFor<KeyExpiryEvent>()(
  z.strictObject({
    ...base,
    event_type: z.enum([AuditEventType.KEY_EXPIRING, AuditEventType.KEY_EXPIRED]),
    key: keyWithFingerprint,
    expires_at: instant,
    notice: z.enum(['7d', '1d', 'expired']),
  }),
);
const keyLeakedSchema = schemaFor<KeyLeakedEvent>()(
  z.strictObject({
    ...base,
    event_type: z.literal(AuditEventType.KEY_LEAKED),
    key: z.strictObject({ name: z.string(), type: keyType, environment }),
    leaked_value: fingerprintSchema,
    value: z.enum(['current', 'previous']),
    on_leak: z.enum(ON_LEAK_VALUES),
    action: z.enum(LEAK_ACTIONS),
    report: z.strictObject({
      reporter: z.enum(['github', 'team']),
      url: z.nullable(z.string()),
      source: z.nullable(z.string()),
      reason: z.nullable(z.string()),
    }),
  }),
);

const withoutKey = { event_id: base.event_id, occurred_at: base.occurred_at, team_id: base.team_id, actor: base.actor, ...chain };
const webhookEndpointSchema = schemaFor<WebhookEndpointEvent>()(
  z.strictObject({
    ...withoutKey,
    endpoint_id: ulid,
    event_type: z.enum([
      AuditEventType.WEBHOOK_ENDPOINT_CREATED,
      AuditEventType.WEBHOOK_ENDPOINT_UPDATED,
      AuditEventType.WEBHOOK_ENDPOINT_DELETED,
      AuditEventType.WEBHOOK_SECRET_ROTATED,
      AuditEventType.WEBHOOK_ENDPOINT_DISABLED,
      AuditEventType.WEBHOOK_TEST_SENT,
      AuditEventType.WEBHOOK_REDELIVERED,
    ]),
    endpoint: z.strictObject({ url: z.string(), events: z.array(z.string()), is_active: z.boolean() }),
    changed_fields: z.array(z.string()),
    reason: z.nullable(z.string()),
  }),
);
const identitySchema = schemaFor<IdentityEvent>()(
  z.strictObject({
    ...withoutKey,
    identity_id: ulid,
    event_type: z.enum([AuditEventType.IDENTITY_CREATED, AuditEventType.IDENTITY_UPDATED, AuditEventType.IDENTITY_DELETED]),
    identity: z.strictObject({ external_id: z.string() }),
    changed_fields: z.array(z.string()),
  }),
);
const creditsAdjustedSchema = schemaFor<CreditsAdjustedEvent>()(
  z
    .strictObject({
      ...withoutKey,
      key_id: z.optional(ulid),
      identity_id: z.optional(ulid),
      event_type: z.literal(AuditEventType.CREDITS_ADJUSTED),
      adjustment: z.strictObject({ add: z.optional(z.number()), set: z.optional(z.number()), expires_at: z.nullable(instant), reason: z.string() }),
    })
    .check(z.refine((event) => (event.key_id === undefined) !== (event.identity_id === undefined), 'names a key or an identity')),
);
const creditsNoticeSchema = schemaFor<CreditsNoticeEvent>()(
  z
    .strictObject({
      ...withoutKey,
      key_id: z.optional(ulid),
      identity_id: z.optional(ulid),
      event_type: z.enum([AuditEventType.CREDITS_LOW, AuditEventType.CREDITS_EXHAUSTED]),
      credits: z.strictObject({ remaining: z.number(), period: z.nullable(z.string()) }),
    })
    .check(z.refine((event) => (event.key_id === undefined) !== (event.identity_id === undefined), 'names a key or an identity')),
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
  keyExpirySchema,
  keyLeakedSchema,
  keyUnusedSchema,
  teamSettingsUpdatedSchema,
  webhookEndpointSchema,
  identitySchema,
  creditsAdjustedSchema,
  creditsNoticeSchema,
]);

export { AUDIT_STORAGE_ATTRIBUTES };

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
