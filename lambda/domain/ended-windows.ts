/**
 * What a process has learnt from the usage items its writes returned, per
 * key, so that the next recording write can be smaller and more exact:
 *
 * - the counts of rate windows that are over (`<key id>#<window index>`): a
 *   window's count is final once its hour ends, and knowing the previous
 *   hour's count lets the recording write carry the exact capacity (see
 *   rate-window.ts);
 * - the window in which the key's item was seen *tidy*, holding no window
 *   older than the previous one. Windows are only ever created by a write in
 *   their own hour, so once an item is tidy in hour `w` nothing can add a
 *   window older than `w − 1` until the hour ends, and the writes of that
 *   hour need not name the old windows to remove them.
 *
 * One per process (built with the services at cold start). Bounded; entries
 * are refreshed by every item the process sees, so a stale one corrects
 * itself on the next request.
 */
import { RecentMap } from '../platform/recent-map';

export class EndedWindows {
  private readonly counts: RecentMap<string, number>;
  private readonly tidy: RecentMap<string, number>;

  constructor(capacity = 10_000) {
    this.counts = new RecentMap(capacity);
    this.tidy = new RecentMap(capacity);
  }

  get(keyId: string, index: number): number | undefined {
    return this.counts.get(`${keyId}#${index}`);
  }

  remember(keyId: string, index: number, count: number): void {
    this.counts.set(`${keyId}#${index}`, count);
  }

  /** Whether the key's item was seen holding no window older than `index − 1` during window `index`. */
  isTidy(keyId: string, index: number): boolean {
    return this.tidy.get(keyId) === index;
  }

  /** The key's item holds no window older than `index − 1`, seen during window `index`. */
  markTidy(keyId: string, index: number): void {
    this.tidy.set(keyId, index);
  }

  /** Forgets everything (tests that rewrite usage items directly). */
  clear(): void {
    this.counts.clear();
    this.tidy.clear();
  }
}
