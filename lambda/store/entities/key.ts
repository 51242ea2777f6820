/**
 * The key: its metadata item, `KEY#<id>` / `KEY` (a tombstone after delete,
 * removed by TTL after 90 days), on the team index as `TEAM#<team>` /
 * `KEY#<id>` (a team's keys: the list route, the last-manager guard).
 */
import { defaultOnLeak, type KeyConfiguration, type KeyItem, type OnLeak } from '../../domain/model';
import { isManager } from '../../domain/key-records';
import { keyPrefixOf, lastFourOf } from '../../domain/key-values';
import {
  ANY_ID,
  BOOLEAN,
  NUMBER,
  OPTIONAL_NUMBER,
  OPTIONAL_STRING,
  OPTIONAL_STRING_OR_NULL,
  OPTIONAL_STRINGS,
  STRING,
  STRING_OR_NULL,
  STRINGS,
  defineEntity,
  positionOf,
  type Attributes,
  type EntityAccess,
  type IndexKey,
} from './entity';

/** Every item's key attributes, as declared. */
export const ITEM_KEY = { pk: STRING, sk: STRING } as const;

/** A key's configuration: on the key item and copied into each of its value lookups. */
export const CONFIGURATION = {
  team_id: STRING,
  name: STRING,
  type: ['pk', 'sk'],
  environment: ['test', 'live'],
  scopes: STRINGS,
  domains: STRINGS,
  ip_whitelist: STRINGS,
  rate_limit: NUMBER,
  expires_at: STRING_OR_NULL,
  created_by: STRING,
  identity_id: OPTIONAL_STRING,
  meter_def: OPTIONAL_STRING,
} as const satisfies Attributes<KeyConfiguration>;

export const KEY = /* @__PURE__ */ defineEntity<KeyItem>()({
  name: 'key',
  table: 'key',
  key: (id: string) => ({ pk: `KEY#${id}`, sk: 'KEY' }),
  attributes: {
    ...CONFIGURATION,
    ...ITEM_KEY,
    entity: ['key'],
    id: STRING,
    is_active: BOOLEAN,
    created_at: STRING,
    description: STRING,
    state: ['active', 'deleted'],
    generation: NUMBER,
    on_leak: ['disable', 'notify'],
    key_prefix: STRING,
    last_four: STRING,
    current_hash: OPTIONAL_STRING,
    previous_hash: OPTIONAL_STRING,
    previous_last_four: OPTIONAL_STRING,
    previous_key_prefix: OPTIONAL_STRING,
    transition_ends_at: OPTIONAL_STRING,
    regenerated_at: OPTIONAL_STRING,
    grace_mode: OPTIONAL_STRING,
    grace_minutes: OPTIONAL_NUMBER,
    new_value_first_used_at: OPTIONAL_STRING,
    revision: OPTIONAL_NUMBER,
    updated_at: OPTIONAL_STRING,
    is_manager: BOOLEAN,
    deleted_at: OPTIONAL_STRING,
    deleted_by: OPTIONAL_STRING,
    deletion_reason: OPTIONAL_STRING_OR_NULL,
    ttl: OPTIONAL_NUMBER,
    expiry_notices: OPTIONAL_STRINGS,
    gsi1pk: STRING,
    gsi1sk: STRING,
  },
  defaults: { on_leak: (item) => defaultOnLeak(item.type === 'pk' ? 'pk' : 'sk') },
});

/** The team index's partition of a team's keys. */
export const teamKeysPartition = (teamId: string): string => `TEAM#${teamId}`;

/** A key's place on the team index. */
export const keyTeamIndex = (teamId: string, id: string): IndexKey => ({ gsi1pk: teamKeysPartition(teamId), gsi1sk: `KEY#${id}` });

/** The last key of a page of a team's keys (the key list's cursor). */
export const teamKeysPage = (teamId: string) => positionOf({ ...KEY.key(ANY_ID), ...keyTeamIndex(teamId, ANY_ID) });

/** The access patterns on key items. */
export const KEY_ACCESS = {
  readTargetKey: ['BatchGetItem'],
  readKey: ['GetItem'],
  listTeamKeys: ['Query byTeam'],
  updateKey: ['UpdateItem', 'ConditionCheckItem'],
  createKey: ['PutItem'],
  rotateValue: ['UpdateItem'],
  markNewValueUsed: ['UpdateItem'],
  expirePreviousValue: ['UpdateItem'],
  tombstoneKey: ['UpdateItem', 'ConditionCheckItem'],
  recordLeak: ['UpdateItem'],
  recordExpiryNotice: ['UpdateItem'],
  recordUnusedNotice: ['UpdateItem'],
} as const satisfies EntityAccess;

/** A new key's item: generation 1, active, holding only the hash of its value. */
export function newKeyItem(
  id: string,
  spec: KeyConfiguration & { description: string; on_leak: OnLeak },
  value: string,
  valueHash: string,
  createdAt: Date,
): KeyItem & { current_hash: string } {
  return {
    ...KEY.key(id),
    ...keyTeamIndex(spec.team_id, id),
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
    ...(spec.identity_id ? { identity_id: spec.identity_id } : {}),
    ...(spec.meter_def ? { meter_def: spec.meter_def } : {}),
  };
}
