/**
 * Per key, the changes this process has started on its usage item (a use
 * recorded, pending uses flushed, an early use taken back). A read of the
 * item taken before one of them is stale after it: the management routes'
 * prefetch (prefetch.ts) serves the usage item it read only when no change
 * started since its mark, and none is pending (a lease's flush timer can
 * write pending uses between the read and its use).
 */
import { RecentMap } from '../platform/recent-map';

export class UsageChanges {
  /** Bounded: a key evicted reads as never changed, so a mark taken before its eviction no longer matches once it changes again. */
  private readonly counts = new RecentMap<string, number>(10_000);

  touch(keyId: string): void {
    this.counts.set(keyId, (this.counts.get(keyId) ?? 0) + 1);
  }

  /** A mark for a read about to be sent; undefined when uses of the key are pending or being written (the read misses them). */
  mark(keyId: string, pending: boolean): number | undefined {
    return pending ? undefined : (this.counts.get(keyId) ?? 0);
  }

  /** Whether no change started since `mark` was taken, and none is pending. */
  unchangedSince(keyId: string, mark: number | undefined, pending: boolean): boolean {
    return mark !== undefined && !pending && (this.counts.get(keyId) ?? 0) === mark;
  }
}
