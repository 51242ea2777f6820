/**
 * Builders of the key table's items from a key's configuration: one place
 * decides what a key item, a value lookup and a usage item hold.
 */
import { keyTableKeys } from '../contract/tables';
import type { KeyAuthSnapshot, KeyConfiguration, KeyItem, OnLeak, ValueLookupItem, ValueSlot } from './model';
import { keyPrefixOf, lastFourOf } from './key-values';
import { KEYS_MANAGE } from '../contract/scopes';

/** A new key's item: generation 1, active, holding only the hash of its value. */
export function newKeyItem(
  id: string,
  spec: KeyConfiguration & { description: string; on_leak: OnLeak },
  value: string,
  valueHash: string,
  createdAt: Date,
): KeyItem & { current_hash: string } {
  return {
    ...keyTableKeys.key(id),
    ...keyTableKeys.teamIndex(spec.team_id, id),
    entity: 'key',
    id,
    team_id: spec.team_id,
    name: spec.name,
    type: spec.type,
    environment: spec.environment,
    scopes: spec.scopes,
    domains: spec.domains,
    ip_whitelist: spec.ip_whitelist,
    rate_limit: spec.rate_limit,
    is_active: true,
    expires_at: spec.expires_at,
    created_by: spec.created_by,
    created_at: createdAt.toISOString(),
    description: spec.description,
    state: 'active',
    generation: 1,
    on_leak: spec.on_leak,
    key_prefix: keyPrefixOf(value),
    last_four: lastFourOf(value),
    current_hash: valueHash,
    is_manager: isManager(spec.type, spec.scopes),
    revision: 1,
    updated_at: createdAt.toISOString(),
  };
}

/** A key's configuration, as set at creation and kept by regeneration. */
export function configurationOf(key: KeyItem): KeyConfiguration {
  const { team_id, name, type, environment, scopes, domains, ip_whitelist, rate_limit, expires_at, created_by } = key;
  return { team_id, name, type, environment, scopes, domains, ip_whitelist, rate_limit, expires_at, created_by };
}

/** The part of a key item that authentication needs, copied into value lookups. */
export function authSnapshotOf(key: KeyItem): KeyAuthSnapshot {
  return {
    key_id: key.id,
    ...configurationOf(key),
    is_active: key.is_active,
  };
}

/** A value lookup item for one of a key's values. */
export function valueLookupItem(
  key: KeyItem,
  valueHash: string,
  slot: ValueSlot,
  generation: number,
  transition?: { endsAt: string; generation: number },
): ValueLookupItem {
  return {
    ...keyTableKeys.valueLookup(valueHash),
    entity: 'value',
    ...authSnapshotOf(key),
    slot,
    generation,
    ...(slot === 'previous' && transition ? { valid_until: transition.endsAt } : {}),
    ...(transition ? { transition_ends_at: transition.endsAt, transition_generation: transition.generation } : {}),
  };
}

/** Whether a key counts as a manager of its team (`sk` holding `keys.manage`). */
export function isManager(type: KeyItem['type'], scopes: readonly string[]): boolean {
  return type === 'sk' && scopes.includes(KEYS_MANAGE);
}
