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
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TEAM_INDEX } from '../contract/tables';
import type { AuditRecord } from '../domain/audit-events';
import { ttlExpired } from '../domain/key-lifetime';
import type { KeyItem } from '../domain/model';
import { queryAll } from './query-all';
import { IdempotencyRace, type IdempotencyRecord } from './idempotency-record';
import {
  LIVE_AT_GENERATION,
  PREVIOUS_VALUE_FIELDS,
  endTransitionItems,
  rotationItems,
  tombstoneItems,
  updateItems,
  type KeyLeak,
  type KeyTombstone,
  type KeyUpdate,
  type ValueRotation,
} from './key-items';
import { ABSENT, Transactions, type StoreTables, type TransactItem, type WriteOutcome } from './transactions';
import type { OperationsOf } from '../contract/store-operations';
import { KEY, teamKeysPartition } from './entities/key';
import { attachKeyItems, joinedIdentity } from './identity-attachments';
import { newUsageItem } from './entities/usage';
import { valueLookupItem } from './entities/value-lookup';

export class KeyStore {
  private readonly transactions: Transactions;

  constructor(private readonly tables: StoreTables) {
    this.transactions = new Transactions(tables);
  }

  // ------------------------------------------------------------------ reads

  /** `readKey`: the key item as stored (tombstones included), strongly consistent. */
  async getKey(keyId: string): Promise<KeyItem | undefined> {
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: KEY.key(keyId), ConsistentRead: true }));
    return KEY.read(Item);
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
    const qualifies = (item: KeyItem) => item.id !== exceptKeyId && (item.expires_at === null || Date.parse(item.expires_at) > now.getTime()) && accepts(item);
    const managers = await queryAll(
      this.tables.db,
      {
        TableName: this.tables.keyTableName,
        IndexName: TEAM_INDEX,
        KeyConditionExpression: 'gsi1pk = :team',
        FilterExpression: '#state = :active AND is_manager = :yes AND is_active = :yes',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':team': teamKeysPartition(teamId), ':active': 'active', ':yes': true },
      },
      KEY.readAll,
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
  async createKey(
    key: KeyItem & { current_hash: string },
    audit: AuditRecord,
    idempotency?: IdempotencyRecord,
    /** Its named limits' and credits' meter attributes (domain/meters.ts `newMeterAttributes`), kept on its usage item. */
    meter: Record<string, unknown> = {},
  ): Promise<true | 'identity_missing'> {
    // Dead code in a bundle whose function does not declare `createKey` (store-operations.ts `operationBundleFlag`).
    if (process.env.OPERATION_CREATE_KEY_BUNDLE === 'absent') return notBundled('createKey');
    else {
      const table = this.tables.keyTableName;
      const items: TransactItem[] = [
        { Put: { TableName: table, Item: key, ConditionExpression: ABSENT } },
        { Put: { TableName: table, Item: valueLookupItem(key, key.current_hash, 'current', key.generation), ConditionExpression: ABSENT } },
        { Put: { TableName: table, Item: { ...newUsageItem(key.id, key.team_id), ...meter }, ConditionExpression: ABSENT } },
        ...(key.identity_id ? attachKeyItems(table, key.identity_id, key.team_id, key.id) : []),
        this.transactions.putAudit(audit),
      ];
      if (idempotency) items.push(this.transactions.putIdempotency(idempotency));
      const outcome = await this.transactions.transact(items);
      if (outcome.committed) return true;
      if (idempotency && outcome.reasons[items.length - 1] === 'ConditionalCheckFailed') throw new IdempotencyRace();
      // The identity named is checked by the item after the usage item's.
      if (key.identity_id && outcome.reasons[3] === 'ConditionalCheckFailed') return 'identity_missing';
      throw new Error(`creating a key was cancelled: ${outcome.reasons.join(', ')}`);
    }
  }

  /**
   * `rotateValue`: compare-and-set of the key item on the generation read,
   * the new value's lookup, the old value's lookup kept as `previous` until
   * the transition ends (or dropped when revoked at once), a stale previous
   * lookup dropped, and the audit record.
   */
  async rotateValue(rotation: ValueRotation): Promise<WriteOutcome> {
    // Dead code in a bundle whose function does not declare `rotateValue` (store-operations.ts `operationBundleFlag`).
    if (process.env.OPERATION_ROTATE_VALUE_BUNDLE === 'absent') return notBundled('rotateValue');
    else {
      const items = rotationItems(rotation, this.tables.keyTableName, this.transactions);
      const outcome = await this.transactions.transact(items);
      if (!outcome.committed && rotation.idempotency && outcome.reasons[items.length - 1] === 'ConditionalCheckFailed') {
        throw new IdempotencyRace();
      }
      return outcome;
    }
  }

  /**
   * `expirePreviousValue`: removes the previous value of transition
   * `generation` if the key item still holds exactly that value (state,
   * generation and hash compared), and writes the audit record.
   */
  async expirePreviousValue(key: KeyItem & { previous_hash: string }, generation: number, audit: AuditRecord, endedAt?: string): Promise<WriteOutcome> {
    // Dead code in a bundle whose function does not declare `expirePreviousValue` (store-operations.ts `operationBundleFlag`).
    if (process.env.OPERATION_EXPIRE_PREVIOUS_VALUE_BUNDLE === 'absent') return notBundled('expirePreviousValue');
    else {
      return this.transactions.transact([
        {
          Update: {
            TableName: this.tables.keyTableName,
            Key: KEY.key(key.id),
            // `endedAt`: a use-driven grace ended before its deadline (domain/grace-modes.ts).
            UpdateExpression: `${endedAt ? 'SET transition_ends_at = :endedAt ' : ''}REMOVE ${PREVIOUS_VALUE_FIELDS}`,
            ConditionExpression: `${LIVE_AT_GENERATION} AND attribute_exists(previous_hash) AND previous_hash = :previousHash`,
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':active': 'active',
              ':expected': generation,
              ':previousHash': key.previous_hash,
              ...(endedAt ? { ':endedAt': endedAt } : {}),
            },
          },
        },
        this.transactions.dropLookup(key.previous_hash),
        this.transactions.putAudit(audit),
      ]);
    }
  }

  /**
   * `tombstoneKey`: the key item becomes a hash-free tombstone that TTL
   * removes after the metadata retention, every lookup is dropped, the
   * survivor (if any) must still be a live manager, and the audit record.
   * `survivorLost` tells a failed survivor check from a lost race.
   */
  async tombstoneKey(deletion: KeyTombstone): Promise<WriteOutcome & { survivorLost?: boolean }> {
    // Dead code in a bundle whose function does not declare `tombstoneKey` (store-operations.ts `operationBundleFlag`).
    if (process.env.OPERATION_TOMBSTONE_KEY_BUNDLE === 'absent') return notBundled('tombstoneKey');
    else {
      return this.transactions.transactGuarded(tombstoneItems(deletion, this.tables.keyTableName, this.transactions), deletion.survivor, deletion.audit);
    }
  }

  /**
   * `updateKey`: the changed configuration on the key item (compare-and-set
   * on generation and revision), the same fields on every value lookup that
   * still authenticates (so a disabled key stops at once), the survivor
   * check when a manager stops being one, and the audit record.
   * `survivorLost` tells a failed survivor check from a lost race.
   */
  async updateKey(update: KeyUpdate): Promise<WriteOutcome & { survivorLost?: boolean; identityMissing?: boolean }> {
    // Dead code in a bundle whose function does not declare `updateKey` (store-operations.ts `operationBundleFlag`).
    if (process.env.OPERATION_UPDATE_KEY_BUNDLE === 'absent') return notBundled('updateKey');
    else {
      const items = updateItems(update, this.tables.keyTableName);
      const joining = joinedIdentity(update.before, update.changes.identity_id) !== undefined;
      const outcome = await this.transactions.transactGuarded(items, update.survivor, update.audit);
      if (outcome.committed) return outcome;
      // The identity joined is checked by the last item but one of the key's own (identity-attachments.ts).
      return { ...outcome, identityMissing: joining && outcome.reasons[items.length - 2] === 'ConditionalCheckFailed' };
    }
  }

  /**
   * `recordLeak`: what a leak report does to the key (key-items.ts
   * `KeyLeak`) and its `key.leaked` record, in one transaction, with the
   * idempotent answer when there is one. Not committed: the key changed
   * since it was read (read it again and decide again).
   */
  async recordLeak(leak: KeyLeak, idempotency?: IdempotencyRecord): Promise<WriteOutcome> {
    // Dead code in a bundle whose function does not declare `recordLeak` (store-operations.ts `operationBundleFlag`).
    if (process.env.OPERATION_RECORD_LEAK_BUNDLE === 'absent') return notBundled('recordLeak');
    else {
      const table = this.tables.keyTableName;
      const items: TransactItem[] =
        leak.kind === 'disable'
          ? [...updateItems(leak.update, table), this.transactions.putAudit(leak.update.audit)]
          : leak.kind === 'end-transition'
            ? [...endTransitionItems(leak.key, leak.at, table, this.transactions), this.transactions.putAudit(leak.audit)]
            : [this.transactions.putAudit(leak.audit)];
      if (idempotency) items.push(this.transactions.putIdempotency(idempotency));
      const outcome = await this.transactions.transact(items);
      if (!outcome.committed && idempotency && outcome.reasons[items.length - 1] === 'ConditionalCheckFailed') throw new IdempotencyRace();
      return outcome;
    }
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
        ExpressionAttributeValues: { ':team': teamKeysPartition(teamId) },
        ScanIndexForward: false,
        Limit: pageSize,
        ExclusiveStartKey: startAfter,
      }),
    );
    return { items: KEY.readAll(page.Items), more: page.LastEvaluatedKey !== undefined };
  }
}

/** A store method called in a bundle built without its operation: the function's declaration is wrong. */
function notBundled(operation: string): never {
  throw new Error(`${operation} is not in this function's bundle: declare it in its operations`);
}

/** Each public method of KeyStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const KEY_STORE_OPERATIONS = {
  getKey: 'readKey',
  getLiveKey: 'readKey',
  otherLiveManager: 'listTeamKeys',
  createKey: 'createKey',
  rotateValue: 'rotateValue',
  expirePreviousValue: 'expirePreviousValue',
  tombstoneKey: 'tombstoneKey',
  updateKey: 'updateKey',
  recordLeak: 'recordLeak',
  teamKeysPage: 'listTeamKeys',
} as const satisfies OperationsOf<KeyStore>;
