/**
 * Value lookups: the item a presented value's hash names (`VALUE#<hash>`),
 * carrying a snapshot of its key's configuration, read by every
 * authentication. What this process read lately is remembered
 * (seen-lookups.ts) as a prediction for the early recording write, never as
 * an answer.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { newValueUseWrites, type NewValueUse } from './grace-marks';
import { oldValueLastEntry } from '../domain/usage-figures';
import { USAGE } from './entities/usage';
import { type ItemKey } from '../contract/tables';
import type { ValueLookupItem } from '../domain/model';
import { BATCH_GET_LIMIT, batchGetAll } from './batch-get';
import type { SeenLookups } from './seen-lookups';
import type { StoreTables } from './transactions';
import type { OperationsOf } from '../contract/store-operations';
import { VALUE_LOOKUP } from './entities/value-lookup';

export class ValueLookupStore {
  constructor(
    private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>,
    /** The value lookups this process read lately: predictions, never answers. */
    readonly seenLookups: SeenLookups,
  ) {}

  /** `readValueLookup`: the lookup item of a value hash, strongly consistent. */
  async getValueLookup(valueHash: string): Promise<ValueLookupItem | undefined> {
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: VALUE_LOOKUP.key(valueHash), ConsistentRead: true }));
    const lookup = VALUE_LOOKUP.read(Item);
    this.seenLookups.saw(valueHash, lookup);
    return lookup;
  }

  /**
   * `readValueLookupAndGuessCounter`: the lookup and another key-table item
   * (the verify endpoint's guess counter) in one BatchGetItem.
   */
  async getValueLookupWith(valueHash: string, companionKeys: readonly ItemKey[]): Promise<{ lookup?: ValueLookupItem; companions: Record<string, unknown>[] }> {
    const lookupKey = VALUE_LOOKUP.key(valueHash);
    const found = await this.getItems([lookupKey, ...companionKeys]);
    const isLookup = (item: Record<string, unknown>) => item.pk === lookupKey.pk && item.sk === lookupKey.sk;
    const lookup = VALUE_LOOKUP.read(found.find(isLookup));
    this.seenLookups.saw(valueHash, lookup);
    return { lookup, companions: found.filter((item) => !isLookup(item)) };
  }

  /**
   * `readValueLookups`: the lookups of many value hashes (a leak report),
   * strongly consistent, 100 to a BatchGetItem, the batches in parallel;
   * hashes with no lookup are absent from the answer.
   */
  async getValueLookups(valueHashes: readonly string[]): Promise<Map<string, ValueLookupItem>> {
    const unique = [...new Set(valueHashes)];
    const batches: string[][] = [];
    for (let i = 0; i < unique.length; i += BATCH_GET_LIMIT) batches.push(unique.slice(i, i + BATCH_GET_LIMIT));
    const found = await Promise.all(batches.map((hashes) => this.getItems(hashes.map((hash) => VALUE_LOOKUP.key(hash)))));
    const lookups = new Map<string, ValueLookupItem>();
    for (const item of VALUE_LOOKUP.readAll(found.flat())) lookups.set(item.pk.slice(item.pk.indexOf('#') + 1), item);
    return lookups;
  }

  /**
   * `markNewValueUsed`: the first VALID use of a use-driven transition's new
   * value, marked on the old value's lookup and the key item (grace-marks.ts),
   * both written. Resolves once each is marked (by this write or an earlier
   * one) or its transition is over; throws when a write failed otherwise.
   */
  async markNewValueUsed(use: NewValueUse): Promise<void> {
    const marked = async (input: UpdateCommandInput) => {
      try {
        await this.tables.db.send(new UpdateCommand(input));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    };
    await Promise.all(newValueUseWrites(use, this.tables.keyTableName).map(marked));
  }

  /** `readOldValueUse`: the old value's last use in transition `generation` (epoch ms), from the key's usage item; 0 when none is recorded. */
  async oldValueLastUse(keyId: string, generation: number): Promise<number> {
    const { Item } = await this.tables.db.send(
      new GetCommand({
        TableName: this.tables.keyTableName,
        Key: USAGE.key(keyId),
        ConsistentRead: true,
        ProjectionExpression: 'transitions.#last',
        ExpressionAttributeNames: { '#last': oldValueLastEntry(generation) },
      }),
    );
    const last = (Item?.transitions as Record<string, unknown> | undefined)?.[oldValueLastEntry(generation)];
    return typeof last === 'number' ? last : 0;
  }

  /** `readPrefetched`: key-table items by key, strongly consistent, in one BatchGetItem (absent ones are left out). */
  async getItems(keys: readonly ItemKey[]): Promise<Record<string, unknown>[]> {
    return batchGetAll(
      this.tables.db,
      this.tables.keyTableName,
      keys.map((key) => ({ pk: key.pk, sk: key.sk })),
    );
  }
}

/** Each public method of ValueLookupStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const VALUE_LOOKUP_STORE_OPERATIONS = {
  getValueLookup: 'readValueLookup',
  getValueLookupWith: 'readValueLookupAndGuessCounter',
  getValueLookups: 'readValueLookups',
  getItems: 'readTargetKey',
  markNewValueUsed: 'markNewValueUsed',
  oldValueLastUse: 'readOldValueUse',
} as const satisfies OperationsOf<ValueLookupStore>;
