/**
 * Creating a key: authorization rules, defaults, then ONE transaction that
 * writes the key item, its value lookup, its usage item and the
 * `key.created` audit record, so a key either exists completely (and is
 * audited) or not at all.
 */
import { AuditEventType, type AuditActor } from '../domain/audit-events';
import { authorizeCreate, identityNotFound } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import { actorOf, type RequestMeta } from '../domain/actor';
import { idempotencyRecord, type IdempotencyClaim } from '../store/idempotency-record';
import { newKeyId } from '../platform/ids';
import { generateCreatedValue, hashKeyValue } from '../domain/key-values';
import { defaultOnLeak } from '../domain/model';
import type { CreatedKey } from '../domain/key-view';
import type { KeyConfiguration, OnLeak } from '../domain/model';

export type { CreatedKey };
import { armExpiry } from './expiry-schedules';
import type { ClockPort, ExpiryPort, KeysPort, ObservePort, SettingsPort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';
import { newKeyItem } from '../store/entities/key';
import { meterDefOfInput, meterDefText, meterResource, meterViewOf, newMeterAttributes, usesMeter, type MeterInput } from '../domain/meters';

/** A fully validated and authorized request to create a key. */
export interface NewKeySpec extends KeyConfiguration {
  description: string;
  on_leak: OnLeak;
}

/** What a caller asks to create: a configuration, its plan's rate limit and no expiry unless given. */
export interface CreateKeyInput extends Omit<KeyConfiguration, 'created_by' | 'rate_limit' | 'expires_at' | 'identity_id' | 'meter_def'>, MeterInput {
  rate_limit?: number;
  /** null or absent: no identity. */
  identity_id?: string | null;
  expires_at?: string | null;
  description?: string;
  /** Default: the type's (defaultOnLeak). */
  on_leak?: OnLeak;
}

/**
 * How an idempotent request's answer is stored with the change: its status
 * and the body built from the result with the issued value nulled.
 */
export interface IdempotentAnswer<TResult> {
  readonly claim: IdempotencyClaim;
  readonly status: number;
  readonly bodyOf: (resultWithoutValue: TResult) => unknown;
}

/** What creating a key takes: the key store, the clock, the plan's default limit and the pepper, expiry notices. */
export type CreateKeyPorts = KeysPort & ClockPort & SettingsPort<'planRateLimit' | 'pepper'> & ExpiryPort & ObservePort;

/** The create endpoint: the caller may create this key, with the plan's defaults. */
export async function createKey(
  services: CreateKeyPorts,
  caller: VerifiedKey,
  input: CreateKeyInput,
  meta: RequestMeta,
  idempotent?: IdempotentAnswer<Omit<CreatedKey, 'key'> & { key: null }>,
): Promise<CreatedKey> {
  authorizeCreate(caller, input);
  return createKeyRecord(
    services,
    {
      name: input.name,
      type: input.type,
      environment: input.environment,
      team_id: input.team_id,
      scopes: input.scopes,
      domains: input.domains,
      ip_whitelist: input.ip_whitelist,
      rate_limit: input.rate_limit ?? services.settings.planRateLimit,
      expires_at: input.expires_at ?? null,
      description: input.description ?? '',
      on_leak: input.on_leak ?? defaultOnLeak(input.type),
      created_by: caller.created_by,
      ...(input.identity_id ? { identity_id: input.identity_id } : {}),
    },
    actorOf(caller, meta),
    'api',
    idempotent,
    { limits: input.limits, credits: input.credits },
  );
}

/** Writes a new key and its audit record atomically; returns the resource with its value. */
export async function createKeyRecord(
  services: KeysPort & ClockPort & SettingsPort<'pepper'> & ExpiryPort & ObservePort,
  spec: NewKeySpec,
  actor: AuditActor,
  via: 'api' | 'bootstrap',
  idempotent?: IdempotentAnswer<Omit<CreatedKey, 'key'> & { key: null }>,
  meter: MeterInput = {},
): Promise<CreatedKey> {
  const value = generateCreatedValue(spec.type, spec.environment, spec.team_id);
  const now = services.clock.now();
  const meterDef = meterDefOfInput(meter);
  const key = newKeyItem(
    newKeyId(),
    { ...spec, ...(usesMeter(meterDef) ? { meter_def: meterDefText(meterDef) } : {}) },
    value,
    hashKeyValue(value, services.settings.pepper),
    now,
  );
  // What the resource and the audit record show: the limits and credits as set (the balance is the one given).
  const meterAttributes = newMeterAttributes(meter, now);
  const metered = meterResource(meterDef, meterViewOf(meterAttributes).credits, now);
  const { key_prefix, last_four } = key;
  const { name, type, environment, scopes, domains, ip_whitelist, rate_limit, expires_at, on_leak } = spec;
  const created: CreatedKey = {
    id: key.id,
    name,
    key: value,
    key_prefix,
    last_four,
    type,
    environment,
    team_id: key.team_id,
    scopes,
    domains,
    ip_whitelist,
    rate_limit,
    is_active: key.is_active,
    expires_at,
    created_by: key.created_by,
    created_at: key.created_at,
    last_used_at: null,
    description: key.description,
    on_leak,
    ...(spec.identity_id ? { identity_id: spec.identity_id } : {}),
    ...metered,
  };
  const answer = idempotent
    ? idempotencyRecord(idempotent.claim, idempotent.status, idempotent.bodyOf({ ...created, key: null }), new Date(key.created_at))
    : undefined;
  await armExpiry(services, key.id, expires_at, new Date(key.created_at));
  const written = await services.keys.createKey(
    key,
    auditItem({
      event_type: AuditEventType.KEY_CREATED,
      occurred_at: key.created_at,
      key_id: key.id,
      team_id: key.team_id,
      actor,
      via,
      key: {
        ...{ name, type, environment, scopes, domains, ip_whitelist, rate_limit, expires_at, on_leak, key_prefix, last_four },
        ...(spec.identity_id ? { identity_id: spec.identity_id } : {}),
        ...metered,
      },
    }),
    answer,
    meterAttributes,
  );
  if (written === 'identity_missing') throw identityNotFound(spec.identity_id as string);
  return created;
}
