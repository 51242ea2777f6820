/**
 * The key store: every read and write of key items, value lookups and audit
 * records, each declared once with its item keys, conditions and updates.
 * Services call these operations as business steps and never build a
 * DynamoDB expression themselves. The operations and the actions they need
 * are listed in lambda/contract/store-operations.ts (the stack's grants come
 * from there); usage counters live in lambda/store/usage-store.ts.
 *
 * Read rules every reader shares: a tombstone, a TTL-expired item (DynamoDB
 * may take up to 48 h to remove it) and a key of another team all read as
 * absent.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { KEY_METADATA_RETENTION_DAYS } from '../contract/retention';
import { TEAM_INDEX, TTL_ATTRIBUTE, keyTableKeys, type ItemKey } from '../contract/tables';
import type { AuditRecord } from '../domain/audit-events';
import { queryAll } from '../platform/query-all';
import { batchGetAll } from '../platform/batch-get';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import { newUsageItem } from '../domain/usage-figures';
import { valueLookupItem } from '../domain/key-records';
import { SeenLookups } from './seen-lookups';
import { ttlExpired } from '../domain/key-lifetime';
import { IdempotencyRace, type IdempotencyRecord } from './idempotency-record';
import type { KeyItem, TeamItem, ValueLookupItem } from '../domain/model';

/** The tables the store writes. */
export interface StoreTables {
  readonly db: DynamoDBDocumentClient;
  readonly keyTableName: string;
  readonly auditTableName: string;
}

/** A write that lost a race: its transaction was cancelled; `reasons` by item position. */
export type WriteOutcome = { readonly committed: true } | { readonly committed: false; readonly reasons: readonly string[] };

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Condition of every item written fresh: nothing may exist under its key. */
const ABSENT = 'attribute_not_exists(pk)';
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

/** The configuration a value lookup copies from its key (what authentication needs that can change). */
export const LOOKUP_SNAPSHOT_FIELDS = ['name', 'scopes', 'domains', 'ip_whitelist', 'rate_limit', 'is_active', 'expires_at'] as const;
export type EditableKeyFields = Pick<KeyItem, (typeof LOOKUP_SNAPSHOT_FIELDS)[number] | 'description'>;

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

/** A manager key that must still be live, active and a manager in its environment when a change commits. */
export type Survivor = Pick<KeyItem, 'id' | 'environment'>;

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
  /** The value lookups this process read lately (seen-lookups.ts): predictions, never answers. */
  readonly seenLookups = new SeenLookups();

  constructor(private readonly tables: StoreTables) {}

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

  /** `readValueLookup`: the lookup item of a value hash, strongly consistent. */
  async getValueLookup(valueHash: string): Promise<ValueLookupItem | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: keyTableKeys.valueLookup(valueHash), ConsistentRead: true }),
    );
    this.seenLookups.saw(valueHash, Item as ValueLookupItem | undefined);
    return Item as ValueLookupItem | undefined;
  }

  /**
   * `readValueLookupAndGuessCounter`: the lookup and another key-table item
   * (the verify endpoint's guess counter) in one BatchGetItem.
   */
  async getValueLookupWith(
    valueHash: string,
    companionKeys: readonly ItemKey[],
  ): Promise<{ lookup?: ValueLookupItem; companions: Record<string, unknown>[] }> {
    const lookupKey = keyTableKeys.valueLookup(valueHash);
    const found = await this.getItems([lookupKey, ...companionKeys]);
    const isLookup = (item: Record<string, unknown>) => item.pk === lookupKey.pk && item.sk === lookupKey.sk;
    const lookup = found.find(isLookup) as ValueLookupItem | undefined;
    this.seenLookups.saw(valueHash, lookup);
    return { lookup, companions: found.filter((item) => !isLookup(item)) };
  }

  /** `readPrefetched`: key-table items by key, strongly consistent, in one BatchGetItem (absent ones are left out). */
  async getItems(keys: readonly ItemKey[]): Promise<Record<string, unknown>[]> {
    return batchGetAll(this.tables.db, this.tables.keyTableName, keys.map((key) => ({ pk: key.pk, sk: key.sk })));
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
      this.putAudit(audit),
    ];
    if (idempotency) items.push(this.putIdempotency(idempotency));
    try {
      await this.tables.db.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      if (idempotency && this.idempotencyLost(error, items.length - 1)) throw new IdempotencyRace();
      throw error;
    }
  }

  /** `readIdempotencyRecord`: a stored answer, unless its 24 hours are over. */
  async getIdempotencyRecord(itemKey: ItemKey, now: Date): Promise<IdempotencyRecord | undefined> {
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: itemKey, ConsistentRead: true }));
    const record = Item as IdempotencyRecord | undefined;
    return record && !ttlExpired(record, now) ? record : undefined;
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
        : this.dropLookup(before.current_hash),
    ];
    // A previous value from an earlier, finished transition that clean-up has not removed yet.
    if (before.previous_hash) items.push(this.dropLookup(before.previous_hash));
    items.push(this.putAudit(rotation.audit));
    if (rotation.idempotency) items.push(this.putIdempotency(rotation.idempotency));
    const outcome = await this.transact(items);
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
    return this.transact([
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
      this.dropLookup(key.previous_hash),
      this.putAudit(audit),
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
    if (key.current_hash) items.push(this.dropLookup(key.current_hash));
    if (key.previous_hash) items.push(this.dropLookup(key.previous_hash));
    return this.transactGuarded(items, survivor, deletion.audit);
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
    return this.transactGuarded(items, survivor, update.audit);
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

  /**
   * `readAuditTrail`: one page of audit records, newest first, of a key
   * (audit table, strongly consistent) or of a team (its team index).
   */
  async auditPage(query: {
    readonly index?: string;
    readonly attribute: 'pk' | 'gsi1pk';
    readonly value: string;
    readonly startAfter?: Readonly<Record<string, string>>;
    readonly limit: number;
  }): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
    // One more than asked: whether a next page exists is known without an empty last page.
    const page = await this.tables.db.send(
      new QueryCommand({
        TableName: this.tables.auditTableName,
        IndexName: query.index,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': query.attribute },
        ExpressionAttributeValues: { ':p': query.value },
        ScanIndexForward: false,
        Limit: query.limit + 1,
        ExclusiveStartKey: query.startAfter,
        ConsistentRead: query.index === undefined,
      }),
    );
    const items = page.Items ?? [];
    return { items: items.slice(0, query.limit), more: items.length > query.limit };
  }

  /** `readTeam`: a team's item (plan and usage key), strongly consistent. */
  async getTeam(teamId: string): Promise<TeamItem | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: keyTableKeys.team(teamId), ConsistentRead: true }),
    );
    return Item as TeamItem | undefined;
  }

  /** `writeTeam` (operator): a team's first item; false when the team has one already. */
  async putNewTeam(team: TeamItem): Promise<boolean> {
    try {
      await this.tables.db.send(new PutCommand({ TableName: this.tables.keyTableName, Item: team, ConditionExpression: ABSENT }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** `writeTeam` (operator): moves a team to another plan, if it is still on `from`. */
  async moveTeamPlan(teamId: string, from: string, to: string, at: Date): Promise<void> {
    await this.tables.db.send(
      new UpdateCommand({
        TableName: this.tables.keyTableName,
        Key: keyTableKeys.team(teamId),
        UpdateExpression: 'SET #plan = :to, updated_at = :at',
        ConditionExpression: '#plan = :from',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':to': to, ':from': from, ':at': at.toISOString() },
      }),
    );
  }

  // ---------------------------------------------------------------- helpers

  /**
   * `items`, then the surviving manager's check (if any) and the audit
   * record, in one transaction; `survivorLost` when that check failed.
   */
  private async transactGuarded(items: TransactItem[], survivor: Survivor | undefined, audit: AuditRecord): Promise<WriteOutcome & { survivorLost?: boolean }> {
    const survivorAt = items.length;
    const all = [...items, ...(survivor ? [this.survivorCheck(survivor)] : []), this.putAudit(audit)];
    const outcome = await this.transact(all);
    if (outcome.committed) return outcome;
    return { ...outcome, survivorLost: survivor !== undefined && outcome.reasons[survivorAt] === 'ConditionalCheckFailed' };
  }

  /** The manager that must still be live, active and in the same environment when a change commits. */
  private survivorCheck(survivor: Survivor): TransactItem {
    return {
      ConditionCheck: {
        TableName: this.tables.keyTableName,
        Key: keyTableKeys.key(survivor.id),
        ConditionExpression: '#state = :active AND is_manager = :true AND is_active = :true AND environment = :environment',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':active': 'active', ':true': true, ':environment': survivor.environment },
      },
    };
  }

  /** An idempotent answer's Put: only where none is stored, or the stored one has expired. */
  private putIdempotency(record: IdempotencyRecord): TransactItem {
    return {
      Put: {
        TableName: this.tables.keyTableName,
        Item: record,
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': epochSeconds(new Date(Date.parse(record.created_at))) },
      },
    };
  }

  /** Whether a transaction was cancelled by its idempotency record (at `position`). */
  private idempotencyLost(error: unknown, position: number): boolean {
    return error instanceof TransactionCanceledException && error.CancellationReasons?.[position]?.Code === 'ConditionalCheckFailed';
  }

  /** The audit record's Put: write-once under its event id. */
  private putAudit(audit: AuditRecord): TransactItem {
    return { Put: { TableName: this.tables.auditTableName, Item: audit, ConditionExpression: ABSENT } };
  }

  private dropLookup(valueHash: string): TransactItem {
    return { Delete: { TableName: this.tables.keyTableName, Key: keyTableKeys.valueLookup(valueHash) } };
  }

  /** One TransactWriteItems; a cancellation (a condition failed, a conflict) is an outcome, anything else throws. */
  private async transact(items: TransactItem[]): Promise<WriteOutcome> {
    try {
      await this.tables.db.send(new TransactWriteCommand({ TransactItems: items }));
      return { committed: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      return { committed: false, reasons: (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None') };
    }
  }
}
