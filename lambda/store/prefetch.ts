/**
 * The target key of a management request, read in the request's first round
 * trip: a route whose input names a `key_id` reads that key's item and usage
 * item in the same BatchGetItem as the caller's value lookup (or, behind the
 * management authorizer, in one BatchGetItem of their own). The services the
 * route's step gets serve each of those items once from memory; any later
 * read of them (a retry after a lost race) goes to the table.
 *
 * Safe because every state change is still a conditional transaction on the
 * state it read (the read only moves a few milliseconds earlier). The caller's
 * own usage item is not served from the prefetch: the caller's use is
 * recorded after it was read.
 */
import { type ItemKey } from '../contract/tables';
import type { KeyStore } from './key-store';
import type { UsageStore } from './usage-store';
import { KEY } from './entities/key';
import { USAGE } from './entities/usage';

/** Crockford base32 ULID, the shape of every key id. */
const KEY_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const nameOf = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;

/** Items read ahead, each served once. */
export class PrefetchedItems {
  private readonly items = new Map<string, Record<string, unknown> | undefined>();

  /** `usageMark`: `UsageStore.readMark` of the target key, taken before the read. */
  constructor(
    keys: readonly ItemKey[],
    found: readonly Record<string, unknown>[],
    readonly usageMark?: number,
  ) {
    for (const key of keys) this.items.set(nameOf(key), undefined);
    for (const item of found) {
      const name = `${String(item.pk)}\u0000${String(item.sk)}`;
      if (this.items.has(name)) this.items.set(name, item);
    }
  }

  /** `{ item }` (item undefined: read, and absent) the first time; undefined when not read ahead or already served. */
  take(key: ItemKey): { item: Record<string, unknown> | undefined } | undefined {
    const name = nameOf(key);
    if (!this.items.has(name)) return undefined;
    const item = this.items.get(name);
    this.items.delete(name);
    return { item };
  }
}

/** The items to read ahead for a request naming `keyId`: the key and its usage item. */
export function targetItemKeys(keyId: string | undefined): ItemKey[] {
  return keyId === undefined ? [] : [KEY.key(keyId), USAGE.key(keyId)];
}

/**
 * The `key_id` a management request names, read from the raw input before
 * validation (a well-formed id only; validation still decides the answer).
 */
export function namedKeyId(input: { body?: string | null; query?: Record<string, string | undefined> | null }, source: 'body' | 'query'): string | undefined {
  let value: unknown;
  if (source === 'query') {
    const query = input.query;
    value = query && Object.prototype.hasOwnProperty.call(query, 'key_id') ? query.key_id : undefined;
  } else {
    const body = input.body;
    if (typeof body !== 'string' || body.length > 4096 || !body.includes('key_id')) return undefined;
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.prototype.hasOwnProperty.call(parsed, 'key_id')) {
        value = (parsed as Record<string, unknown>).key_id;
      }
    } catch {
      return undefined;
    }
  }
  return typeof value === 'string' && KEY_ID.test(value) ? value : undefined;
}

/** The services of one request: reads of the prefetched items served from memory, once. */
export function withPrefetched<S extends { readonly keys: KeyStore; readonly usage: UsageStore }>(
  services: S,
  prefetched: PrefetchedItems | undefined,
  callerId: string,
): S {
  if (!prefetched) return services;
  const baseKeys = services.keys;
  const baseUsage = services.usage;
  const keys: KeyStore = Object.create(baseKeys);
  keys.getKey = async (keyId: string) => {
    const served = prefetched.take(KEY.key(keyId));
    return served ? KEY.read(served.item) : baseKeys.getKey(keyId);
  };
  const usage: UsageStore = Object.create(baseUsage);
  usage.usageItem = async (keyId: string) => {
    const served = prefetched.take(USAGE.key(keyId));
    // The caller's own item missed this request's use; any other may miss uses this process had not written when it
    // was read, or wrote since (a lease's flush timer can take pending uses between the read and now).
    if (!served || keyId === callerId || !baseUsage.unchangedSince(keyId, prefetched.usageMark)) return baseUsage.usageItem(keyId);
    return USAGE.read(served.item);
  };
  return { ...services, keys, usage };
}
