/**
 * A team's identities: create, read (by id, or listed, or by external id),
 * change and delete. Team-scoped as keys are: another team's identity is
 * 404, exactly as an unknown one. Every change is one transaction with its
 * audit record; `external_id` stays unique in the team under concurrent
 * writes (its claim item, store/identity-store.ts).
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { actorOf, type RequestMeta } from '../domain/actor';
import { AuditEventType, type IdentityEvent } from '../domain/audit-events';
import { identityResource, type IdentityItem, type IdentityResource } from '../domain/identities';
import { assertPrecondition, entityTagOf, type Precondition } from '../domain/revision';
import { assertOwnTeam, identityNotFound } from '../policy/authorization';
import type { ClockPort, IdentitiesPort, SettingsPort } from '../store/ports';
import { updateKey, type UpdateKeyPorts } from './update-key';
import type { IdentityChanges } from '../store/identity-store';
import { decodeCursor, encodeCursor } from '../platform/cursor';
import { newKeyId } from '../platform/ids';
import type { VerifiedKey } from '../verification/verify';
import { auditItem } from '../store/entities/audit-record';
import { newIdentityItem, teamIdentitiesPage } from '../store/entities/identity';
import { meterViewOf, newMeterAttributes, type MeterInput } from '../domain/meters';
import { creditsAfter, meterChangeOf, type MeterChange } from '../domain/meter-changes';

/** An identity's meter attributes after `change` (its item is its meter), for the answer. */
function meterAfter(identity: IdentityItem, change: MeterChange | undefined): Record<string, unknown> {
  if (!change) return {};
  const credits = creditsAfter(meterViewOf(identity as unknown as Record<string, unknown>).credits, change);
  return {
    meter_def: change.text ?? undefined,
    cr_left: credits?.left,
    cr_period: credits?.period,
    cr_g: credits?.grants,
  };
}

/** What the identity routes take: the identities and the clock. */
export type IdentityPorts = IdentitiesPort & ClockPort;
/** What listing a team's identities takes: their store and the cursor signing key. */
export type ListIdentitiesPorts = IdentitiesPort & ClockPort & SettingsPort<'cursorSigningKey'>;

/** The identity with its entity tag (`ETag`, the `If-Match` of an update). */
export interface TaggedIdentity {
  resource: IdentityResource;
  entityTag: string;
}

const tagged = (item: IdentityItem, at: Date): TaggedIdentity => ({ resource: identityResource(item, at), entityTag: entityTagOf(item) });

const externalIdTaken = (externalId: string) =>
  new ApiError(ErrorCode.CONFLICT, 'Another identity of the team has this external_id.', [{ field: 'external_id', issue: `already used: ${externalId}` }]);

/** An identity of the caller's team, or 404 (another team's identity is reported exactly like a missing one). */
export async function ownIdentity(services: IdentitiesPort, caller: VerifiedKey, identityId: string): Promise<IdentityItem> {
  const identity = await services.identities.getIdentity(identityId);
  if (!identity || identity.team_id !== caller.team_id) throw identityNotFound(identityId);
  return identity;
}

function identityAudit(type: IdentityEvent['event_type'], identity: IdentityItem, caller: VerifiedKey, meta: RequestMeta, at: Date, changed: string[] = []) {
  return auditItem({
    event_type: type,
    occurred_at: at.toISOString(),
    identity_id: identity.id,
    team_id: identity.team_id,
    actor: actorOf(caller, meta),
    identity: { external_id: identity.external_id },
    changed_fields: changed,
  });
}

export interface CreateIdentityInput extends MeterInput {
  team_id: string;
  external_id: string;
  meta?: Record<string, unknown>;
}

export async function createIdentity(services: IdentityPorts, caller: VerifiedKey, input: CreateIdentityInput, meta: RequestMeta): Promise<TaggedIdentity> {
  assertOwnTeam(caller, input.team_id, 'The calling key cannot create another team’s identities.');
  const at = services.clock.now();
  const now = at.toISOString();
  const item = {
    ...newIdentityItem(newKeyId(), { team_id: input.team_id, external_id: input.external_id, created_by: caller.created_by, meta: input.meta }, now),
    // Its limits' and credits' meter: on the identity's own item (domain/meters.ts).
    ...newMeterAttributes(input, at),
  };
  const created = await services.identities.createIdentity(item, identityAudit(AuditEventType.IDENTITY_CREATED, item, caller, meta, at));
  if (created !== true) throw externalIdTaken(input.external_id);
  return tagged(item, at);
}

export async function getIdentity(services: IdentitiesPort & ClockPort, caller: VerifiedKey, input: { identity_id: string }): Promise<TaggedIdentity> {
  return tagged(await ownIdentity(services, caller, input.identity_id), services.clock.now());
}

export async function listIdentities(
  services: ListIdentitiesPorts,
  caller: VerifiedKey,
  input: { team_id: string; external_id?: string; limit: number; cursor?: string },
): Promise<{ data: IdentityResource[]; next_cursor: string | null }> {
  assertOwnTeam(caller, input.team_id, 'The calling key cannot list another team’s identities.');
  if (input.external_id !== undefined) {
    // One identity at most: found through its external id's claim, strongly consistent.
    const id = await services.identities.identityIdByExternalId(input.team_id, input.external_id);
    const identity = id === undefined ? undefined : await services.identities.getIdentity(id);
    // Renamed or deleted between the two reads: it no longer has that external id.
    const found = identity?.external_id === input.external_id ? [identityResource(identity, services.clock.now())] : [];
    return { data: found, next_cursor: null };
  }
  const start = input.cursor === undefined ? undefined : decodeCursor(input.cursor, teamIdentitiesPage(input.team_id), services.settings.cursorSigningKey);
  const page = await services.identities.listIdentities(input.team_id, input.limit, start);
  const at = services.clock.now();
  return {
    data: page.items.map((item) => identityResource(item, at)),
    next_cursor: page.last ? encodeCursor(page.last, services.settings.cursorSigningKey) : null,
  };
}

export interface UpdateIdentityInput extends MeterInput {
  identity_id: string;
  external_id?: string;
  meta?: Record<string, unknown>;
}

export async function updateIdentity(
  services: IdentityPorts,
  caller: VerifiedKey,
  input: UpdateIdentityInput,
  meta: RequestMeta,
  precondition?: Precondition,
): Promise<TaggedIdentity> {
  const identity = await ownIdentity(services, caller, input.identity_id);
  assertPrecondition(precondition, identity, 'identity');
  const changes: IdentityChanges = {};
  if (input.external_id !== undefined && input.external_id !== identity.external_id) changes.external_id = input.external_id;
  if (input.meta !== undefined && JSON.stringify(input.meta) !== identity.meta) changes.meta = JSON.stringify(input.meta);
  const now = services.clock.now();
  const meter = meterChangeOf(identity.meter_def, input, now);
  const changed = [...Object.keys(changes), ...Object.keys(meter?.audited ?? {})].sort();
  if (changed.length === 0) return tagged(identity, now);
  const after: IdentityItem = { ...identity, ...changes, ...meterAfter(identity, meter), updated_at: now.toISOString(), revision: identity.revision + 1 };
  const outcome = await services.identities.changeIdentity(
    identity,
    changes,
    now,
    identityAudit(AuditEventType.IDENTITY_UPDATED, after, caller, meta, now, changed),
    meter,
  );
  if (outcome === 'external_id_taken') throw externalIdTaken(changes.external_id as string);
  if (outcome !== true) throw await changedMeanwhile(services, caller, input.identity_id, precondition);
  return tagged(after, services.clock.now());
}

/** The answer to a change that lost a race: 404 when the identity went, 412 when If-Match no longer holds, else 409. */
async function changedMeanwhile(services: IdentitiesPort, caller: VerifiedKey, identityId: string, precondition?: Precondition): Promise<ApiError> {
  const current = await ownIdentity(services, caller, identityId);
  assertPrecondition(precondition, current, 'identity');
  return new ApiError(ErrorCode.CONFLICT, 'The identity changed while this request was being processed; read it again and retry.');
}

/** What deleting an identity takes: the identities, and the keys' update to take its keys out of it (`detach_keys`). */
export type DeleteIdentityPorts = IdentityPorts & UpdateKeyPorts;

/** How many times a delete reads the identity again after a key joined it (or it changed) meanwhile. */
const DELETE_ROUNDS = 3;

const keysAttached = (count: number) =>
  new ApiError(
    ErrorCode.CONFLICT,
    count === 1
      ? '1 key names this identity: change its identity_id, delete it, or send detach_keys: true to take it out of the identity first.'
      : `${count} keys name this identity: change their identity_id, delete them, or send detach_keys: true to take them out of it first.`,
    [{ field: 'detach_keys', issue: `the identity has ${count} ${count === 1 ? 'key' : 'keys'}` }],
  );

/**
 * Deletes an identity no key names (409 while one does). With `detach_keys`,
 * each of its keys is first taken out of it as an update of the key would
 * (`identity_id` cleared, audited as `key.updated`); a key that joins
 * meanwhile is found on the next round.
 */
export async function deleteIdentity(
  services: DeleteIdentityPorts,
  caller: VerifiedKey,
  input: { identity_id: string; detach_keys?: boolean },
  meta: RequestMeta,
): Promise<{ deleted: true; id: string }> {
  for (let round = 1; round <= DELETE_ROUNDS; round++) {
    const identity = await ownIdentity(services, caller, input.identity_id);
    const keyCount = identity.key_count ?? 0;
    if (keyCount > 0) {
      if (!input.detach_keys) throw keysAttached(keyCount);
      await detachKeys(services, caller, identity.id, meta);
      continue;
    }
    const now = services.clock.now();
    const outcome = await services.identities.deleteIdentity(identity, identityAudit(AuditEventType.IDENTITY_DELETED, identity, caller, meta, now));
    if (outcome === true) return { deleted: true, id: identity.id };
  }
  throw await changedMeanwhile(services, caller, input.identity_id);
}

/** Takes every key that names the identity out of it; a key changed meanwhile is left for the caller's next round. */
async function detachKeys(services: DeleteIdentityPorts, caller: VerifiedKey, identityId: string, meta: RequestMeta): Promise<void> {
  for (const keyId of await services.identities.identityKeyIds(identityId)) {
    const key = await services.keys.getLiveKey(keyId, caller.team_id, services.clock.now());
    if (key?.identity_id !== identityId) continue;
    try {
      // At the revision read: a key moved to another identity meanwhile is never taken out of that one.
      await updateKey(services, caller, { key_id: keyId, identity_id: null }, meta, { any: false, tags: [entityTagOf(key)], weak: [] });
    } catch (error) {
      if (!(error instanceof ApiError) || ![404, 409, 412].includes(error.status)) throw error;
    }
  }
}
