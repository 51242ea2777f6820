/**
 * A map that keeps its most recently set entries only: setting an entry
 * makes it the newest, and past `capacity` the oldest goes. What a process
 * remembers between requests (ended windows, seen lookups, guess counters at
 * their limit) is bounded with it.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets `key` as the newest entry; the oldest goes past the capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
