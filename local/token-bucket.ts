/**
 * API Gateway's throttle, as its documentation describes it: a token bucket
 * of `burstLimit` tokens, refilled continuously at `rateLimit` tokens per
 * second; a request takes one token or is throttled. A new bucket is full.
 * Pure: time comes in as milliseconds, so tests move it.
 */
export interface BucketLimits {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly limits: BucketLimits,
    now: number,
  ) {
    this.tokens = limits.burstLimit;
    this.updatedAt = now;
  }

  /** Takes a token at `now`: admitted, or throttled with the seconds until a token is back (at least 1). */
  take(now: number): { admitted: true } | { admitted: false; retryAfterSeconds: number } {
    const elapsed = Math.max(0, now - this.updatedAt) / 1000;
    this.tokens = Math.min(this.limits.burstLimit, this.tokens + elapsed * this.limits.rateLimit);
    this.updatedAt = Math.max(this.updatedAt, now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { admitted: true };
    }
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - this.tokens) / this.limits.rateLimit)) };
  }
}
