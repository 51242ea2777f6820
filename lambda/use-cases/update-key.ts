/**
 * Editing a key: name, description, scopes, domains, IP allow-list, rate
 * limit, expiry, and disabling or enabling it. One transaction changes the
 * key item (compare-and-set on its generation and revision), the
 * configuration copied into every value lookup that still authenticates (a
 * disabled key stops at once, every value of it), and writes the audit
 * record with each changed field's before and after. A concurrent
 * regenerate, update or delete makes it 409 or 404, never a lost update.
 */
import { ApiError, ErrorCode, invalidRequest, type ErrorDetail } from '../contract/errors';
import { KEYS_MANAGE } from '../contract/scopes';
import { AuditEventType, type FieldValue, type KeyUpdatedEvent } from '../domain/audit-events';
import { EDITABLE_FIELDS, type EditableField, type EditableKeyFields, type KeyChanges } from '../domain/editable-fields';
import { creditsAfter, meterChangeOf } from '../domain/meter-changes';
import type { MeterInput } from '../domain/meters';
import type { VerifiedKey } from '../verification/verify';
import { actorOf, type RequestMeta } from '../domain/actor';
import { KEY_TYPE_RULES } from '../domain/key-type-rules';
import { assertPrecondition, entityTagOf, type Precondition, type TaggedKey } from '../domain/revision';
import { assertGrantable, identityNotFound, notFound } from '../policy/authorization';
import { isManager } from '../domain/key-records';
import { authenticatingHashes } from '../domain/key-lifetime';
import { keyResource } from '../domain/key-view';
import { isActingManager, lastManagerConflict, survivingManager } from '../policy/managers';
import type { KeyItem } from '../domain/model';
import { reachableKey } from './read-keys';
import { armExpiry, disarmExpiry } from './expiry-schedules';
import type { ClockPort, ExpiryPort, KeysPort, ObservePort, UsagePort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';

/** A change to a key: any of its editable fields, and whether it is active. */
export type UpdateKeyInput = { key_id: string; is_active?: boolean } & Partial<EditableKeyFields> & MeterInput;

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The rules that depend on the key itself, checked once it is read: 400 listing every problem. */
function assertFitsKey(key: KeyItem, input: UpdateKeyInput): void {
  const problems: ErrorDetail[] = [];
  if (key.type === 'pk' && input.scopes?.includes(KEYS_MANAGE)) {
    problems.push({ field: 'scopes', issue: KEY_TYPE_RULES.manageOnPk });
  }
  if (key.type === 'sk' && input.domains !== undefined && input.domains.length > 0) {
    problems.push({ field: 'domains', issue: KEY_TYPE_RULES.domainsOnSk });
  }
  if (problems.length > 0) throw invalidRequest(problems);
}

function eventTypeOf(changes: Partial<Record<EditableField, unknown>>): KeyUpdatedEvent['event_type'] {
  if (changes.is_active === false) return AuditEventType.KEY_DISABLED;
  if (changes.is_active === true) return AuditEventType.KEY_ENABLED;
  return AuditEventType.KEY_UPDATED;
}

/** What an update takes: the key store, its usage (the answer), the clock, expiry notices. */
export type UpdateKeyPorts = KeysPort & UsagePort & ClockPort & ExpiryPort & ObservePort;

export async function updateKey(
  services: UpdateKeyPorts,
  caller: VerifiedKey,
  input: UpdateKeyInput,
  meta: RequestMeta,
  precondition?: Precondition,
): Promise<TaggedKey> {
  const now = services.clock.now();
  const key = await reachableKey(services, caller, input.key_id, now);
  assertPrecondition(precondition, key);
  assertFitsKey(key, input);
  if (input.scopes !== undefined) assertGrantable(caller, input.scopes);

  const changes: KeyChanges = {};
  const audited: KeyUpdatedEvent['changes'] = {};
  for (const field of EDITABLE_FIELDS) {
    const next = input[field];
    // A key of no identity has no identity_id: null is its value.
    const current = field === 'identity_id' ? (key.identity_id ?? null) : key[field];
    if (next === undefined || sameValue(next, current)) continue;
    (changes as Record<string, unknown>)[field] = next;
    audited[field] = { before: current as FieldValue, after: next as FieldValue };
  }
  const meter = meterChangeOf(key.meter_def, input, now);
  if (meter) {
    changes.meter_def = meter.text;
    Object.assign(audited, meter.audited);
  }
  const usage = await services.usage.readUsage(key.id, now);
  // Nothing differs from what is stored: nothing to write or audit.
  if (Object.keys(changes).length === 0) return { resource: keyResource(key, usage, now), entityTag: entityTagOf(key) };

  const { identity_id: nextIdentity, meter_def: nextMeter, ...otherChanges } = changes;
  const after: KeyItem = { ...key, ...otherChanges, updated_at: now.toISOString() };
  if (nextMeter === null) delete after.meter_def;
  else if (nextMeter !== undefined) after.meter_def = nextMeter;
  if (nextIdentity === null) delete after.identity_id;
  else if (nextIdentity !== undefined) after.identity_id = nextIdentity;
  after.is_manager = isManager(after.type, after.scopes);
  const survivor = isActingManager(key) && !isActingManager(after) ? await survivingManager(services, key, caller, now, 'disabling or demoting') : undefined;

  if (changes.expires_at !== undefined) await armExpiry(services, key.id, changes.expires_at, now);
  const outcome = await services.keys.updateKey({
    before: key,
    changes,
    isManager: after.is_manager,
    meter,
    lookupHashes: authenticatingHashes(key, now),
    survivor,
    at: now,
    audit: auditItem({
      event_type: eventTypeOf(changes),
      occurred_at: now.toISOString(),
      key_id: key.id,
      team_id: key.team_id,
      actor: actorOf(caller, meta),
      key: { name: key.name, type: key.type, environment: key.environment, key_prefix: key.key_prefix, last_four: key.last_four },
      changes: audited,
    }),
  });
  if (!outcome.committed) {
    const current = await services.keys.getLiveKey(key.id, caller.team_id, services.clock.now());
    if (!current) throw notFound(input.key_id);
    if (outcome.survivorLost) throw lastManagerConflict('disabling or demoting');
    if (outcome.identityMissing) throw identityNotFound(changes.identity_id as string);
    // Changed after it was read: 412 when the request's If-Match no longer holds.
    assertPrecondition(precondition, current);
    throw new ApiError(ErrorCode.CONFLICT, 'The key changed while this request was being processed; read it again and retry.');
  }
  if (changes.expires_at !== undefined) await disarmExpiry(services, key.id, key.expires_at);
  const written = { ...after, revision: (key.revision ?? 0) + 1 };
  return { resource: keyResource(written, { ...usage, credits: creditsAfter(usage.credits, meter) }, now), entityTag: entityTagOf(written) };
}
