/**
 * The key store: every read and write of key items (with the value lookups
 * and audit record a change writes in the same transaction), each declared
 * once with its item keys, conditions and updates. Services call these
 * operations as business steps and never build a DynamoDB expression
 * themselves. The operations and the actions they need are listed in
 * lambda/contract/store-operations.ts (the stack's grants come from there).
 * The other entities have stores of their own: value lookups, teams, the
 * audit trail, idempotency records, usage.
 *
 * Read rules every reader shares: a tombstone, a TTL-expired item (DynamoDB
 * may take up to 48 h to remove it) and a key of another team all read as
 * absent.
 */
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_METADATA_RETENTION_DAYS } from '../contract/retention';
import { TEAM_INDEX, TTL_ATTRIBUTE, keyTableKeys } from '../contract/tables';
import type { AuditRecord } from '../domain/audit-events';
import { LOOKUP_SNAPSHOT_FIELDS, type EditableKeyFields } from '../domain/editable-fields';
import { valueLookupItem } from '../domain/key-records';
import { ttlExpired } from '../domain/key-lifetime';
import type { KeyItem } from '../domain/model';
import { newUsageItem } from '../domain/usage-figures';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import { queryAll } from '../platform/query-all';
import { IdempotencyRace, type IdempotencyRecord } from './idempotency-record';
import { ABSENT, Transactions, idempotencyLost, type StoreTables, type Survivor, type TransactItem, type WriteOutcome } from './transactions';

/** Condition of a compare-and-set on a key item: still live, at the generation read. */
const LIVE_AT_GENERATION = '#state = :active AND generation = :expected';
const PREVIOUS_VALUE_FIELDS = 'previous_hash, previous_last_four, previous_key_prefix';

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
  readonly transition?: { readonly endsAt: string; readonly generation: number };
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
  readonly changes: Partial<EditableKeyFields>;
  /** Whether the key is a manager after the change. */
  readonly isManager: boolean;
  /** Hashes of the values whose lookups carry the configuration (current, and previous during a transition). */
  readonly lookupHashes: readonly string[];
  /** A manager that must survive (when this key stops being one). */
  readonly survivor?: Survivor;
  readonly at: Date;
  readonly audit: AuditRecord;
}

export class KeyStore {
  private readonly transactions: Transactions;

  constructor(private readonly tables: StoreTables) {
    this.transactions = new Transactions(tables);
  }

  // ------------------------------------------------------------------ reads

  /** `readKey`: the key item as stored (tombstones included), strongly consistent. */
  async getKey(keyId: string): Promise<KeyItem | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: keyTableKeys.key(keyId), ConsistentRead: true }),
    );
    return Item as KeyItem | undefined;
  }

  /** A live (not deleted) key of the given team, or undefined. */
  async getLiveKey(keyId: string, teamId: string, now: Date): Promise<KeyItem | undefined> {
    const item = await this.getKey(keyId);
    if (!item || item.entity !== 'key' || item.team_id !== teamId) return undefined;
    if (item.state !== 'active' || ttlExpired(item, now)) return undefined;
    return item;
  }

  /**
   * `listTeamKeys`: a live, active manager key of the team (`sk` holding
   * `keys.manage`, not expired) other than `exceptKeyId` that `accepts`, or
   * undefined. The team's index is read page by page until one is found.
   */
  async otherLiveManager(teamId: string, exceptKeyId: string, now: Date, accepts: (key: KeyItem) => boolean): Promise<KeyItem | undefined> {
    const qualifies = (item: KeyItem) =>
      item.id !== exceptKeyId && (item.expires_at === null || Date.parse(item.expires_at) > now.getTime()) && accepts(item);
    const managers = await queryAll<KeyItem>(
      this.tables.db,
      {
        TableName: this.tables.keyTableName,
        IndexName: TEAM_INDEX,
        KeyConditionExpression: 'gsi1pk = :team',
        FilterExpression: '#state = :active AND is_manager = :yes AND is_active = :yes',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':team': keyTableKeys.teamPartition(teamId), ':active': 'active', ':yes': true },
      },
      (found) => found.some(qualifies),
    );
    return managers.find(qualifies);
  }

  // ----------------------------------------------------------------- writes

  /**
   * `createKey`: key item, its value lookup, its usage item and the audit
   * record, all or nothing. A fresh ULID collides with nothing, so any
   * failure here is unexpected and thrown as it is.
   */
  async createKey(key: KeyItem & { current_hash: string }, audit: AuditRecord, idempotency?: IdempotencyRecord): Promise<void> {
    const table = this.tables.keyTableName;
    const items: TransactItem[] = [
      { Put: { TableName: table, Item: key, ConditionExpression: ABSENT } },
      { Put: { TableName: table, Item: valueLookupItem(key, key.current_hash, 'current', key.generation), ConditionExpression: ABSENT } },
      { Put: { TableName: table, Item: newUsageItem(key.id, key.team_id), ConditionExpression: ABSENT } },
      this.transactions.putAudit(audit),
    ];
    if (idempotency) items.push(this.transactions.putIdempotency(idempotency));
    try {
      await this.tables.db.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      if (idempotency && idempotencyLost(error, items.length - 1)) throw new IdempotencyRace();
      throw error;
    }
  }

  /**
   * `rotateValue`: compare-and-set of the key item on the generation read,
   * the new value's lookup, the old value's lookup kept as `previous` until
   * the transition ends (or dropped when revoked at once), a stale previous
   * lookup dropped, and the audit record.
   */
  async rotateValue(rotation: ValueRotation): Promise<WriteOutcome> {
    const { before, after, transition } = rotation;
    const table = this.tables.keyTableName;
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
    if (transition) {
      update += ', previous_hash = :oldHash, previous_last_four = :oldLastFour, previous_key_prefix = :oldPrefix';
      Object.assign(values, { ':oldHash': before.current_hash, ':oldLastFour': before.last_four, ':oldPrefix': before.key_prefix });
    } else {
      update += ` REMOVE ${PREVIOUS_VALUE_FIELDS}`;
    }
    const items: TransactItem[] = [
      {
        Update: {
          TableName: table,
          Key: keyTableKeys.key(before.id),
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
              Key: keyTableKeys.valueLookup(before.current_hash),
              UpdateExpression:
                'SET slot = :previous, valid_until = :endsAt, transition_ends_at = :endsAt, transition_generation = :generation, #ttl = :ttl',
              ConditionExpression: 'attribute_exists(pk) AND key_id = :keyId',
              ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
              ExpressionAttributeValues: {
                ':previous': 'previous',
                ':endsAt': transition.endsAt,
                ':generation': transition.generation,
                ':keyId': before.id,
                ':ttl': epochSeconds(new Date(Date.parse(transition.endsAt) + PREVIOUS_LOOKUP_TTL_MARGIN_MS)),
              },
            },
          }
        : this.transactions.dropLookup(before.current_hash),
    ];
    // A previous value from an earlier, finished transition that clean-up has not removed yet.
    if (before.previous_hash) items.push(this.transactions.dropLookup(before.previous_hash));
    items.push(this.transactions.putAudit(rotation.audit));
    if (rotation.idempotency) items.push(this.transactions.putIdempotency(rotation.idempotency));
    const outcome = await this.transactions.transact(items);
    if (!outcome.committed && rotation.idempotency && outcome.reasons[items.length - 1] === 'ConditionalCheckFailed') {
      throw new IdempotencyRace();
    }
    return outcome;
  }

  /**
   * `expirePreviousValue`: removes the previous value of transition
   * `generation` if the key item still holds exactly that value (state,
   * generation and hash compared), and writes the audit record.
   */
  async expirePreviousValue(key: KeyItem & { previous_hash: string }, generation: number, audit: AuditRecord): Promise<WriteOutcome> {
    return this.transactions.transact([
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: keyTableKeys.key(key.id),
          UpdateExpression: `REMOVE ${PREVIOUS_VALUE_FIELDS}`,
          ConditionExpression: `${LIVE_AT_GENERATION} AND attribute_exists(previous_hash) AND previous_hash = :previousHash`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':active': 'active', ':expected': generation, ':previousHash': key.previous_hash },
        },
      },
      this.transactions.dropLookup(key.previous_hash),
      this.transactions.putAudit(audit),
    ]);
  }

  /**
   * `tombstoneKey`: the key item becomes a hash-free tombstone that TTL
   * removes after the metadata retention, every lookup is dropped, the
   * survivor (if any) must still be a live manager, and the audit record.
   * `survivorLost` tells a failed survivor check from a lost race.
   */
  async tombstoneKey(deletion: KeyTombstone): Promise<WriteOutcome & { survivorLost?: boolean }> {
    const { key, survivor } = deletion;
    const table = this.tables.keyTableName;
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
          Key: keyTableKeys.key(key.id),
          UpdateExpression:
            'SET #state = :deleted, is_active = :false, deleted_at = :now, updated_at = :now, deleted_by = :by, deletion_reason = :reason, ' +
            `#ttl = :ttl, ${revision.set} REMOVE current_hash, ${PREVIOUS_VALUE_FIELDS}`,
          ConditionExpression: `${LIVE_AT_GENERATION} AND ${revision.condition}`,
          ExpressionAttributeNames: { '#state': 'state', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: values,
        },
      },
    ];
    if (key.current_hash) items.push(this.transactions.dropLookup(key.current_hash));
    if (key.previous_hash) items.push(this.transactions.dropLookup(key.previous_hash));
    return this.transactions.transactGuarded(items, survivor, deletion.audit);
  }

  /**
   * `updateKey`: the changed configuration on the key item (compare-and-set
   * on generation and revision), the same fields on every value lookup that
   * still authenticates (so a disabled key stops at once), the survivor
   * check when a manager stops being one, and the audit record.
   * `survivorLost` tells a failed survivor check from a lost race.
   */
  async updateKey(update: KeyUpdate): Promise<WriteOutcome & { survivorLost?: boolean }> {
    const { before, changes, survivor } = update;
    const table = this.tables.keyTableName;
    const names: Record<string, string> = { '#state': 'state' };
    const values: Record<string, unknown> = { ':active': 'active', ':expected': before.generation, ':now': update.at.toISOString() };
    const sets: string[] = ['updated_at = :now'];
    const lookupSets: string[] = [];
    const lookupValues: Record<string, unknown> = { ':keyId': before.id };
    for (const [field, value] of Object.entries(changes)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
      if ((LOOKUP_SNAPSHOT_FIELDS as readonly string[]).includes(field)) {
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
          Key: keyTableKeys.key(before.id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `${LIVE_AT_GENERATION} AND ${revision.condition}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ];
    if (lookupSets.length > 0) {
      const lookupNames = Object.fromEntries(Object.entries(names).filter(([alias]) => alias !== '#state'));
      for (const hash of update.lookupHashes) {
        items.push({
          Update: {
            TableName: table,
            Key: keyTableKeys.valueLookup(hash),
            UpdateExpression: `SET ${lookupSets.join(', ')}`,
            ConditionExpression: 'attribute_exists(pk) AND key_id = :keyId',
            ExpressionAttributeNames: Object.fromEntries(lookupSets.map((set) => set.split(' = ')[0]).map((alias) => [alias, lookupNames[alias]])),
            ExpressionAttributeValues: lookupValues,
          },
        });
      }
    }
    return this.transactions.transactGuarded(items, survivor, update.audit);
  }

  /**
   * `listTeamKeys` (team index, newest first: ids are ULIDs): one page of
   * the team's key items after `startAfter`. The index is eventually
   * consistent; a key created a moment ago may show on the next call.
   */
  async teamKeysPage(teamId: string, startAfter: Readonly<Record<string, string>> | undefined, pageSize: number): Promise<{ items: KeyItem[]; more: boolean }> {
    const page = await this.tables.db.send(
      new QueryCommand({
        TableName: this.tables.keyTableName,
        IndexName: TEAM_INDEX,
        KeyConditionExpression: 'gsi1pk = :team',
        ExpressionAttributeValues: { ':team': keyTableKeys.teamPartition(teamId) },
        ScanIndexForward: false,
        Limit: pageSize,
        ExclusiveStartKey: startAfter,
      }),
    );
    return { items: (page.Items ?? []) as KeyItem[], more: page.LastEvaluatedKey !== undefined };
  }


}
