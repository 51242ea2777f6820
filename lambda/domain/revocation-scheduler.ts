/**
 * The revocation-scheduling port: at a transition's end, the expire handler
 * removes the old value's traces and writes the expiration audit record.
 * Authentication never waits for it (the clock already refuses the old
 * value); the schedule only makes state and audit trail catch up.
 */
export interface RevocationRequest {
  keyId: string;
  /** Generation of the new value; the transition to expire. */
  generation: number;
}

export interface RevocationScheduler {
  /** Arranges `expire(keyId, generation)` at `at` (ISO 8601, UTC). */
  schedule(request: RevocationRequest & { at: string }): Promise<void>;
  /** Best effort: a missed cancel is harmless (the expire handler is a no-op then). */
  cancel(request: RevocationRequest): Promise<void>;
}
