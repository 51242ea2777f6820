/**
 * Verification analytics (docs/analytics.md), the counting rules: every
 * verification of a value that belongs to a key is counted by team, key,
 * identity, the scope asked and the outcome, per clock minute. A process
 * adds its counts up in memory (`VerificationTally`) and writes them as one
 * record per team and minute, in batches (store/verification-counts.ts), so
 * a verification itself sends nothing more than it did before.
 *
 * Buckets are aligned to the epoch: minutes, hours and UTC days.
 */

/** What a verification is counted as. */
export const OUTCOMES = [
  'VALID',
  'RATE_LIMITED',
  'USAGE_EXCEEDED',
  'SCOPE_DENIED',
  'IP_NOT_ALLOWED',
  'ORIGIN_NOT_ALLOWED',
  'INACTIVE',
  'EXPIRED',
  'REVOKED',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const isOutcome = (code: string): code is Outcome => (OUTCOMES as readonly string[]).includes(code);

/** One counted verification's dimensions. `scope`: the scopes asked, sorted and space-separated; '' when none. */
export interface CountedVerification {
  readonly teamId: string;
  readonly keyId: string;
  readonly identityId: string;
  readonly scope: string;
  readonly outcome: Outcome;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export type Granularity = 'minute' | 'hour' | 'day';
export const BUCKET_MS: Record<Granularity, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };

/** The start (epoch ms) of the bucket of `granularity` holding `at` (epoch ms). */
export function bucketStart(at: number, granularity: Granularity): number {
  return Math.floor(at / BUCKET_MS[granularity]) * BUCKET_MS[granularity];
}

/** The scope dimension of a request's asked scopes. */
export function scopeDimension(scopes: readonly string[] | undefined): string {
  return [...new Set(scopes ?? [])].sort().join(' ');
}

/** The name a counted combination is stored under in a record's count map (JSON: no separator can clash). */
export function entryName(entry: Omit<CountedVerification, 'teamId'>): string {
  return JSON.stringify([entry.keyId, entry.identityId, entry.scope, entry.outcome]);
}

/** The combination a stored entry name stands for; undefined for a name this version did not write. */
export function entryOf(name: string): Omit<CountedVerification, 'teamId'> | undefined {
  try {
    const parts: unknown = JSON.parse(name);
    if (!Array.isArray(parts) || parts.length !== 4 || !parts.every((part) => typeof part === 'string')) return undefined;
    const [keyId, identityId, scope, outcome] = parts as string[];
    return isOutcome(outcome as string)
      ? { keyId: keyId as string, identityId: identityId as string, scope: scope as string, outcome: outcome as Outcome }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Counts of one team in one minute, by entry name. */
export interface MinuteCounts {
  readonly teamId: string;
  /** The minute's start, epoch ms. */
  readonly minute: number;
  readonly counts: Record<string, number>;
}

/**
 * The counts a process holds and has not written. A batch is at most
 * `spanMs` old when it is taken: a count that arrives after that (a sandbox
 * thawed after a freeze, say) starts the next one, so a batch's records
 * cover at most two or three minutes.
 */
export class VerificationTally {
  private readonly byMinute = new Map<string, MinuteCounts>();
  private oldest = 0;
  private total = 0;

  constructor(private readonly spanMs: number) {}

  /** Counts one verification at `at` (epoch ms). */
  add(counted: CountedVerification, at: number): void {
    const minute = bucketStart(at, 'minute');
    const id = `${counted.teamId}|${minute}`;
    let counts = this.byMinute.get(id);
    if (!counts) {
      counts = { teamId: counted.teamId, minute, counts: {} };
      this.byMinute.set(id, counts);
    }
    const name = entryName(counted);
    counts.counts[name] = (counts.counts[name] ?? 0) + 1;
    if (this.total === 0) this.oldest = at;
    this.total += 1;
  }

  /** Verifications counted and not taken. */
  size(): number {
    return this.total;
  }

  /** Whether the oldest count must be written by `now` (epoch ms). */
  due(now: number): boolean {
    return this.total > 0 && now - this.oldest >= this.spanMs;
  }

  /** Everything counted, as one team-minute each, forgotten here. */
  take(): MinuteCounts[] {
    const taken = [...this.byMinute.values()];
    this.byMinute.clear();
    this.total = 0;
    this.oldest = 0;
    return taken;
  }
}

/** Adds `from` into `into` (entry by entry). */
export function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): Record<string, number> {
  for (const [name, n] of Object.entries(from)) into[name] = (into[name] ?? 0) + n;
  return into;
}
