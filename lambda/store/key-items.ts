/**
 * The transactions that change a key, as data: each function returns the
 * items one TransactWriteItems sends (the key item's compare-and-set, its
 * value lookups, the audit record), built from the change; the key store
 * sends them (key-store.ts). Every condition and update expression on a key
 * item is written here, once.
 */
import { KEY_METADATA_RETENTION_DAYS } from '../contract/retention';
import { TTL_ATTRIBUTE } from '../contract/tables';
import type { AuditRecord } from '../domain/audit-events';
import { LOOKUP_SNAPSHOT_FIELDS, type KeyChanges } from '../domain/editable-fields';
import type { MeterChange } from '../domain/meter-changes';
import { meterUpdateItem } from './meter-updates';
import { USAGE } from './entities/usage';
import type { KeyItem } from '../domain/model';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import type { IdempotencyRecord } from './idempotency-record';
import { ABSENT, type Survivor, type TransactItem, type Transactions } from './transactions';
import { KEY } from './entities/key';
import { VALUE_LOOKUP, valueLookupItem, type ValueTransition } from './entities/value-lookup';
import { detachKeyItems, identityMoveItems } from './identity-attachments';
import { updateExpressionOf } from './update-expressions';

/** Condition of a compare-and-set on a key item: still live, at the generation read. */
export const LIVE_AT_GENERATION = '#state = :active AND generation = :expected';
export const PREVIOUS_VALUE_FIELDS = 'previous_hash, previous_last_four, previous_key_prefix';
/** A transition's use-driven grace on the key item, and the new value's first use it saw (domain/grace-modes.ts). */
const NEW_VALUE_FIRST_USE = 'new_value_first_used_at';
const GRACE_FIELDS = `grace_mode, grace_minutes, ${NEW_VALUE_FIRST_USE}`;

/**
 * The compare-and-set on a key item's revision: the condition that it is
 * still at the revision read (absent on items older than revisions), and
 * the SET that moves it on. Every change to a key item goes through it, so
 * two concurrent changes never both commit (no lost update).
 */
function revisionStep(key: KeyItem, values: Record<string, unknown>): { condition: string; set: string } {
  const revision = key.revision ?? 0;
  values[':nextRevision'] = revision + 1;
  if (revision === 0) return { condition: 'attribute_not_exists(revision)', set: 'revision = :nextRevision' };
  values[':revision'] = revision;
  return { condition: 'revision = :revision', set: 'revision = :nextRevision' };
}

/** A previous value's lookup lingers this long past its end, for clean-up by TTL if nothing else ran. */
const PREVIOUS_LOOKUP_TTL_MARGIN_MS = MS_PER_DAY;
/** A rotation to write: the key as read, the key with its new value, and the transition (absent: revoked at once). */
export interface ValueRotation {
  readonly before: KeyItem & { current_hash: string };
  readonly after: KeyItem & { current_hash: string };
  readonly transition?: ValueTransition;
  readonly audit: AuditRecord;
  /** The answer to store when the request is idempotent. */
  readonly idempotency?: IdempotencyRecord;
}

/** A deletion to write. `survivor`: a manager key that must still be live when it commits. */
export interface KeyTombstone {
  readonly key: KeyItem;
  readonly deletedAt: Date;
  readonly deletedBy: string;
  readonly reason: string | null;
  readonly survivor?: Survivor;
  readonly audit: AuditRecord;
}

/** A configuration change to write. */
export interface KeyUpdate {
  readonly before: KeyItem;
  /** The fields that change, with their new values. */
  readonly changes: KeyChanges;
  /** A change of its limits or credits: its usage item (their meter) changes with it. */
  readonly meter?: MeterChange;
  /** Whether the key is a manager after the change. */
  readonly isManager: boolean;
  /** Hashes of the values whose lookups carry the configuration (current, and previous during a transition). */
  readonly lookupHashes: readonly string[];
  /** A manager that must survive (when this key stops being one). */
  readonly survivor?: Survivor;
  readonly at: Date;
  readonly audit: AuditRecord;
}

/**
 * A leak's change to write (domain/leaks.ts): `disable` is a configuration
 * change (`is_active: false`, every authenticating lookup with it);
 * `end-transition` stops the old value of a live transition now (the key
 * item forgets it, its lookup is dropped, the new value's lookup ends its
 * transition); `none` writes the audit record alone.
 */
export type KeyLeak =
  | { readonly kind: 'disable'; readonly update: KeyUpdate }
  | { readonly kind: 'end-transition'; readonly key: KeyItem & { previous_hash: string; current_hash: string }; readonly at: Date; readonly audit: AuditRecord }
  | { readonly kind: 'none'; readonly audit: AuditRecord };

/** `recordLeak`'s items for an ended transition (before the audit record): compare-and-set on the key's revision and the very old value. */
export function endTransitionItems(key: KeyItem & { previous_hash: string; current_hash: string }, at: Date, table: string, tx: Transactions): TransactItem[] {
  const values: Record<string, unknown> = { ':active': 'active', ':expected': key.generation, ':previousHash': key.previous_hash, ':now': at.toISOString() };
  const revision = revisionStep(key, values);
  return [
    {
      Update: {
        TableName: table,
        Key: KEY.key(key.id),
        UpdateExpression: `SET transition_ends_at = :now, updated_at = :now, ${revision.set} REMOVE ${PREVIOUS_VALUE_FIELDS}`,
        ConditionExpression: `${LIVE_AT_GENERATION} AND previous_hash = :previousHash AND ${revision.condition}`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      },
    },
    tx.dropLookup(key.previous_hash),
    {
      Update: {
        TableName: table,
        Key: VALUE_LOOKUP.key(key.current_hash),
        UpdateExpression: 'SET transition_ends_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND key_id = :keyId',
        ExpressionAttributeValues: { ':now': at.toISOString(), ':keyId': key.id },
      },
    },
  ];
}

/** `rotateValue`'s items: the key item's compare-and-set, the new lookup, the old one kept or dropped, the audit record, the idempotent answer (last). */
export function rotationItems(rotation: ValueRotation, table: string, tx: Transactions): TransactItem[] {
  const { before, after, transition } = rotation;
  const values: Record<string, unknown> = {
    ':expected': before.generation,
    ':active': 'active',
    ':generation': after.generation,
    ':newHash': after.current_hash,
    ':prefix': after.key_prefix,
    ':lastFour': after.last_four,
    ':regeneratedAt': after.regenerated_at,
    ':endsAt': after.transition_ends_at,
  };
  const revision = revisionStep(before, values);
  let update =
    'SET generation = :generation, current_hash = :newHash, key_prefix = :prefix, last_four = :lastFour, ' +
    `regenerated_at = :regeneratedAt, transition_ends_at = :endsAt, updated_at = :regeneratedAt, ${revision.set}`;
  // A use-driven grace of an earlier transition never carries over.
  const removes = transition?.grace ? [NEW_VALUE_FIRST_USE] : [GRACE_FIELDS];
  if (transition) {
    update += ', previous_hash = :oldHash, previous_last_four = :oldLastFour, previous_key_prefix = :oldPrefix';
    Object.assign(values, { ':oldHash': before.current_hash, ':oldLastFour': before.last_four, ':oldPrefix': before.key_prefix });
  } else {
    removes.push(PREVIOUS_VALUE_FIELDS);
  }
  if (transition?.grace) {
    update += ', grace_mode = :graceMode, grace_minutes = :graceMinutes';
    Object.assign(values, { ':graceMode': transition.grace.grace_mode, ':graceMinutes': transition.grace.grace_minutes });
  }
  update += ` REMOVE ${removes.join(', ')}`;
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: KEY.key(before.id),
        UpdateExpression: update,
        ConditionExpression: `${LIVE_AT_GENERATION} AND ${revision.condition}`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      },
    },
    {
      Put: {
        TableName: table,
        Item: valueLookupItem(after, after.current_hash, 'current', after.generation, transition),
        ConditionExpression: ABSENT,
      },
    },
    transition
      ? {
          Update: {
            TableName: table,
            Key: VALUE_LOOKUP.key(before.current_hash),
            UpdateExpression:
              'SET slot = :previous, valid_until = :endsAt, deprecated_at = :deprecatedAt, transition_ends_at = :endsAt, transition_generation = :generation, #ttl = :ttl' +
              (transition.grace ? ', grace_mode = :graceMode, grace_minutes = :graceMinutes' : ''),
            ConditionExpression: 'attribute_exists(pk) AND key_id = :keyId',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: {
              ...(transition.grace ? { ':graceMode': transition.grace.grace_mode, ':graceMinutes': transition.grace.grace_minutes } : {}),
              ':previous': 'previous',
              ':endsAt': transition.endsAt,
              ':deprecatedAt': after.regenerated_at,
              ':generation': transition.generation,
              ':keyId': before.id,
              ':ttl': epochSeconds(new Date(Date.parse(transition.endsAt) + PREVIOUS_LOOKUP_TTL_MARGIN_MS)),
            },
          },
        }
      : tx.dropLookup(before.current_hash),
  ];
  // A previous value from an earlier, finished transition that clean-up has not removed yet.
  if (before.previous_hash) items.push(tx.dropLookup(before.previous_hash));
  items.push(tx.putAudit(rotation.audit));
  if (rotation.idempotency) items.push(tx.putIdempotency(rotation.idempotency));
  return items;
}

/** `tombstoneKey`'s items (before the survivor check and the audit record). */
export function tombstoneItems(deletion: KeyTombstone, table: string, tx: Transactions): TransactItem[] {
  const { key } = deletion;
  const values: Record<string, unknown> = {
    ':deleted': 'deleted',
    ':active': 'active',
    ':false': false,
    ':now': deletion.deletedAt.toISOString(),
    ':by': deletion.deletedBy,
    ':reason': deletion.reason,
    ':ttl': epochSeconds(new Date(deletion.deletedAt.getTime() + KEY_METADATA_RETENTION_DAYS * MS_PER_DAY)),
    ':expected': key.generation,
  };
  const revision = revisionStep(key, values);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: KEY.key(key.id),
        UpdateExpression:
          'SET #state = :deleted, is_active = :false, deleted_at = :now, updated_at = :now, deleted_by = :by, deletion_reason = :reason, ' +
          `#ttl = :ttl, ${revision.set} REMOVE current_hash, ${PREVIOUS_VALUE_FIELDS}${key.identity_id ? ', identity_id' : ''}`,
        ConditionExpression: `${LIVE_AT_GENERATION} AND ${revision.condition}`,
        ExpressionAttributeNames: { '#state': 'state', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: values,
      },
    },
  ];
  if (key.current_hash) items.push(tx.dropLookup(key.current_hash));
  if (key.previous_hash) items.push(tx.dropLookup(key.previous_hash));
  // A deleted key leaves its identity, which may then be deleted.
  if (key.identity_id) items.push(...detachKeyItems(table, key.identity_id, key.id));
  return items;
}

/** `updateKey`'s items (before the survivor check and the audit record). */
export function updateItems(update: KeyUpdate, table: string): TransactItem[] {
  const { before, changes } = update;
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':active': 'active', ':expected': before.generation, ':now': update.at.toISOString() };
  const sets: string[] = ['updated_at = :now'];
  const removes: string[] = [];
  const lookupSets: string[] = [];
  const lookupRemoves: string[] = [];
  const lookupValues: Record<string, unknown> = { ':keyId': before.id };
  for (const [field, value] of Object.entries(changes)) {
    names[`#${field}`] = field;
    const inLookups = (LOOKUP_SNAPSHOT_FIELDS as readonly string[]).includes(field);
    // A key taken out of its identity carries no identity_id at all (as a key that never had one); one left without limits or credits no meter_def.
    if ((field === 'identity_id' || field === 'meter_def') && value === null) {
      removes.push(`#${field}`);
      if (inLookups) lookupRemoves.push(`#${field}`);
      continue;
    }
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
    if (inLookups) {
      lookupSets.push(`#${field} = :${field}`);
      lookupValues[`:${field}`] = value;
    }
  }
  values[':isManager'] = update.isManager;
  sets.push('is_manager = :isManager');
  const revision = revisionStep(before, values);
  sets.push(revision.set);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: KEY.key(before.id),
        UpdateExpression: updateExpressionOf({ sets, removes }),
        ConditionExpression: `${LIVE_AT_GENERATION} AND ${revision.condition}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  if (lookupSets.length + lookupRemoves.length > 0) {
    const lookupNames = Object.fromEntries(Object.entries(names).filter(([alias]) => alias !== '#state'));
    const aliases = [...lookupSets.map((set) => set.split(' = ')[0] as string), ...lookupRemoves];
    const expression = updateExpressionOf({ sets: lookupSets, removes: lookupRemoves });
    for (const hash of update.lookupHashes) {
      items.push({
        Update: {
          TableName: table,
          Key: VALUE_LOOKUP.key(hash),
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(pk) AND key_id = :keyId',
          ExpressionAttributeNames: Object.fromEntries(aliases.map((alias) => [alias, lookupNames[alias]])),
          ExpressionAttributeValues: lookupValues,
        },
      });
    }
  }
  // Before the identity's items: the store reads the identity's refusal at the last item but one (key-store.ts).
  if (update.meter) items.push(meterUpdateItem(table, USAGE.key(before.id), update.meter));
  items.push(...identityMoveItems(before, changes.identity_id, table));
  return items;
}
