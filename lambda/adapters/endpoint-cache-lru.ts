/**
 * The least-recently-used map the DynamoDB client's endpoint cache keeps
 * (`@aws-sdk/endpoint-cache` imports `mnemonist/lru-cache`), as the function
 * bundles use it: lib/house-function.ts aliases `mnemonist/lru-cache` to
 * this module. The client builds the cache when it is made and uses it only
 * with endpoint discovery on, which the service never turns on; mnemonist's
 * cache and its iterator library are about 7 KB of every bundle.
 *
 * Implements exactly what `EndpointCache` calls: `get` (refreshes the
 * entry), `set` (refreshes it, and drops the least recently used entry past
 * `capacity`), `has` and `peek` (refresh nothing), `clear`.
 */
export default class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
