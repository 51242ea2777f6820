/**
 * Usage counters and the per-key rate limit, both kept on the key's usage
 * item (`KEY#<id>` / `USAGE`), which both values of a key in transition share.
 *
 * Rate limit: a sliding one-hour window approximated over two fixed one-hour
 * windows (the Cloudflare/NGINX estimate):
 *
 *     estimate = previous × (1 − elapsed) + current
 *
 * where `elapsed` is the fraction of the current hour gone. A request is
 * admitted when the estimate including it is at most `rate_limit`.
 * Precision: exact while the previous hour was empty; otherwise it assumes
 * the previous hour's requests were spread evenly over it, so a burst at the
 * end (start) of the previous hour is under- (over-) weighted. Within one
 * clock hour at most `rate_limit` requests are admitted; over an arbitrary
 * sliding hour, fewer than 2 × `rate_limit` in the worst case (a burst in the
 * last moments of one hour, then steady use through the next).
 *
 * The counter (usage-store.ts `recordUse`) is ONE conditional UpdateItem: it adds the request to the
 * current window only if the window is below its capacity
 * (`windows.<now> < ⌊rate_limit − previous × (1 − elapsed)⌋`), so DynamoDB
 * serialises concurrent requests on the item and exactly the capacity is
 * admitted however many arrive at once. The capacity needs the previous
 * window's count, which is final once that hour is over: it is remembered
 * per process from earlier responses. Without it the condition uses
 * `rate_limit` (a sound upper bound: the previous window only ever lowers the
 * capacity) and the returned item decides; a request that the condition let
 * through but the estimate refuses gives its slot back (rare: only the first
 * requests of a key per process and hour, while the previous hour had traffic).
 */

export const RATE_WINDOW_MS = 60 * 60 * 1000;

export interface RateLimitState {
  /** Requests per hour allowed. */
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /** Epoch seconds at which the current one-hour window ends. */
  reset: number;
  /** Seconds until a request would be admitted again; set only when refused. */
  retryAfterSeconds?: number;
}

export function windowIndex(at: Date): number {
  return Math.floor(at.getTime() / RATE_WINDOW_MS);
}

/** When (epoch seconds) the window holding `at` ends: the `reset` of the RateLimit state. */
export function windowResetAt(at: Date): number {
  return Math.floor(((windowIndex(at) + 1) * RATE_WINDOW_MS) / 1000);
}

/** Fraction of the current window gone at `at`, in [0, 1). */
export function elapsedFraction(at: Date): number {
  return (at.getTime() - windowIndex(at) * RATE_WINDOW_MS) / RATE_WINDOW_MS;
}

/** How many requests the current window may hold, given the previous window's count. */
export function windowCapacity(previous: number, elapsed: number, limit: number): number {
  return limit - previous * (1 - elapsed);
}

/**
 * When (epoch ms) a request would be admitted again, given the admitted
 * counts of the previous and current windows at `at` (windows of
 * `windowMs`: an hour, or a named limit's window).
 */
export function admittedAgainAt(previous: number, current: number, at: Date, limit: number, windowMs = RATE_WINDOW_MS): number {
  const windowStart = Math.floor(at.getTime() / windowMs) * windowMs;
  if (current + 1 <= limit && previous > 0) {
    // Within this window, once enough of the previous window has slid out.
    return windowStart + (1 - (limit - current - 1) / previous) * windowMs;
  }
  // In the next window, once enough of this window has slid out.
  const elapsedNeeded = current > 0 ? Math.max(0, 1 - (limit - 1) / current) : 0;
  return windowStart + windowMs + elapsedNeeded * windowMs;
}

/** The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers) of a key's hourly limit. */
export function rateLimitHeaders(state: RateLimitState, now: Date, named: readonly NamedLimitState[] = []): Record<string, string> {
  const seconds = Math.floor(now.getTime() / 1000);
  const reset = Math.max(0, state.reset - seconds);
  // Each named limit after the hourly one, as `<owner>.<name>` (a key's and its identity's may share a name).
  const policies = named.map((limit) => `, "${limit.owner}.${limit.name}";q=${limit.limit};w=${limit.window_seconds}`);
  const states = named.map((limit) => `, "${limit.owner}.${limit.name}";r=${limit.remaining};t=${Math.max(0, limit.reset - seconds)}`);
  return {
    'RateLimit-Policy': `"hourly";q=${state.limit};w=3600${policies.join('')}`,
    RateLimit: `"hourly";r=${state.remaining};t=${state.retryAfterSeconds ?? reset}${states.join('')}`,
  };
}

/** A named limit's figures as the RateLimit headers list them (domain/meters.ts). */
export interface NamedLimitState {
  name: string;
  owner: string;
  limit: number;
  window_seconds: number;
  remaining: number;
  reset: number;
}
