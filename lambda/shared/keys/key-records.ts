/**
 * Builders of the key table's items from a key's configuration: one place
 * decides what a key item, a value lookup and a usage item hold.
 */
import { keyTableKeys } from '../../contract/tables';
import type { KeyAuthSnapshot, KeyItem, ValueLookupItem, ValueSlot } from './model';
import { KEYS_MANAGE } from '../../contract/scopes';

/** The part of a key item that authentication needs, copied into value lookups. */
export function authSnapshotOf(key: KeyItem): KeyAuthSnapshot {
  return {
    key_id: key.id,
    team_id: key.team_id,
    name: key.name,
    type: key.type,
    environment: key.environment,
    scopes: key.scopes,
    domains: key.domains,
    ip_whitelist: key.ip_whitelist,
    rate_limit: key.rate_limit,
    is_active: key.is_active,
    expires_at: key.expires_at,
    created_by: key.created_by,
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
