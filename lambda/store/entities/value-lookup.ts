/**
 * A value lookup: one per valid value of a key, `HASH#<sha256>` / `HASH`,
 * holding the snapshot of the key that authentication needs (so a
 * verification reads one item). The previous value's lookup lives until its
 * transition ends; every lookup goes when the key is deleted.
 */
import { authSnapshotOf } from '../../domain/key-records';
import type { KeyItem, ValueLookupItem, ValueSlot } from '../../domain/model';
import type { UseDrivenGrace } from '../../domain/grace-modes';

/** A regeneration's transition as the lookups carry it: its end (the hard maximum), its generation, its use-driven grace and the old value's hash. */
export interface ValueTransition {
  endsAt: string;
  generation: number;
  grace?: UseDrivenGrace;
  oldHash?: string;
}
import { BOOLEAN, NUMBER, OPTIONAL_NUMBER, OPTIONAL_STRING, STRING, defineEntity, type EntityAccess } from './entity';
import { CONFIGURATION, ITEM_KEY } from './key';

export const VALUE_LOOKUP = /* @__PURE__ */ defineEntity<ValueLookupItem>()({
  name: 'value lookup',
  table: 'key',
  key: (valueHash: string) => ({ pk: `HASH#${valueHash}`, sk: 'HASH' }),
  attributes: {
    ...CONFIGURATION,
    ...ITEM_KEY,
    entity: ['value'],
    key_id: STRING,
    is_active: BOOLEAN,
    slot: ['current', 'previous'],
    generation: NUMBER,
    valid_until: OPTIONAL_STRING,
    deprecated_at: OPTIONAL_STRING,
    transition_ends_at: OPTIONAL_STRING,
    transition_generation: OPTIONAL_NUMBER,
    grace_mode: OPTIONAL_STRING,
    grace_minutes: OPTIONAL_NUMBER,
    new_value_first_used_at: OPTIONAL_STRING,
    old_value_hash: OPTIONAL_STRING,
    ttl: OPTIONAL_NUMBER,
  },
});

/** The access patterns on value lookups. */
export const VALUE_LOOKUP_ACCESS = {
  readValueLookup: ['GetItem'],
  readValueLookupAndGuessCounter: ['BatchGetItem'],
  readTargetKey: ['BatchGetItem'],
  readValueLookups: ['BatchGetItem'],
  updateKey: ['UpdateItem'],
  createKey: ['PutItem'],
  rotateValue: ['PutItem', 'UpdateItem', 'DeleteItem'],
  markNewValueUsed: ['UpdateItem'],
  expirePreviousValue: ['UpdateItem', 'DeleteItem'],
  tombstoneKey: ['DeleteItem'],
  recordLeak: ['UpdateItem', 'DeleteItem'],
} as const satisfies EntityAccess;

/** A value lookup item for one of a key's values. */
export function valueLookupItem(key: KeyItem, valueHash: string, slot: ValueSlot, generation: number, transition?: ValueTransition): ValueLookupItem {
  return {
    ...VALUE_LOOKUP.key(valueHash),
    entity: 'value',
    ...authSnapshotOf(key),
    slot,
    generation,
    ...(slot === 'previous' && transition ? { valid_until: transition.endsAt } : {}),
    ...(transition ? { transition_ends_at: transition.endsAt, transition_generation: transition.generation } : {}),
    ...(transition?.grace ? { ...transition.grace, ...(transition.oldHash ? { old_value_hash: transition.oldHash } : {}) } : {}),
  };
}
