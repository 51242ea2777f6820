/**
 * A key's configuration, the snapshot of it that authentication needs, and
 * whether it manages its team (the items themselves are built by their
 * entities, store/entities/key.ts and value-lookup.ts).
 */
import type { KeyAuthSnapshot, KeyConfiguration, KeyItem } from './model';
import { KEYS_MANAGE } from '../contract/scopes';

/** A key's configuration, as set at creation and kept by regeneration. */
export function configurationOf(key: KeyItem): KeyConfiguration {
  const { team_id, name, type, environment, scopes, domains, ip_whitelist, rate_limit, expires_at, created_by, identity_id, meter_def } = key;
  // A key of no identity carries no identity_id at all, as before identities existed; one without limits or credits no meter_def.
  return {
    ...{ team_id, name, type, environment, scopes, domains, ip_whitelist, rate_limit, expires_at, created_by },
    ...(identity_id ? { identity_id } : {}),
    ...(meter_def ? { meter_def } : {}),
  };
}

/** The part of a key item that authentication needs, copied into value lookups. */
export function authSnapshotOf(key: KeyItem): KeyAuthSnapshot {
  return {
    key_id: key.id,
    ...configurationOf(key),
    is_active: key.is_active,
  };
}

/** Whether a key counts as a manager of its team (`sk` holding `keys.manage`). */
export function isManager(type: KeyItem['type'], scopes: readonly string[]): boolean {
  return type === 'sk' && scopes.includes(KEYS_MANAGE);
}
