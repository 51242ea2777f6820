/**
 * Counts of rate windows that are over, learnt from earlier responses, by
 * `<key id>#<window index>`: a window's count is final once its hour ends,
 * and knowing the previous hour's count lets the recording write carry the
 * exact capacity (see rate-window.ts). One per process (built with the
 * services at cold start). Bounded; entries are refreshed by every item the
 * process sees, so a stale one corrects itself on the next request.
 */
export class EndedWindows {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  get(keyId: string, index: number): number | undefined {
    return this.counts.get(`${keyId}#${index}`);
  }

  remember(keyId: string, index: number, count: number): void {
    const name = `${keyId}#${index}`;
    this.counts.delete(name);
    this.counts.set(name, count);
    if (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value as string);
  }

  /** Forgets every count (tests that rewrite usage items directly). */
  clear(): void {
    this.counts.clear();
  }
}
