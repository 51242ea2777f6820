import * as z from 'zod/mini';
import { scopeSchema } from '../../http/schemas/common';
import { costSchema } from '../../http/schemas/meters';
import type { LimitFigure } from '../../domain/meters';
import type { VerifyFailureCode } from '../../verification/verify';
import type { Environment, KeyType } from '../../domain/key-values';

/**
 * Body of `POST /functions/v1/verify-api-key`. The value itself is checked by
 * the verify function (a malformed value is a definitive NOT_FOUND, not a
 * 400); the bound only keeps absurd bodies out.
 */
export const verifyKeyRequestSchema = z.strictObject({
  key: z.string({ error: 'must be a string' }).check(z.minLength(1, 'must not be empty'), z.maxLength(512, 'must be at most 512 characters')),
  scope: z.optional(scopeSchema),
  /** Credits this verification costs (default 1): charged to the key's credits, else to its identity's. */
  cost: z.optional(costSchema),
});

export type VerifyKeyRequest = z.output<typeof verifyKeyRequestSchema>;

/** The 200 answer, valid or not. */
export interface VerifyKeyResponse {
  valid: boolean;
  code: 'VALID' | VerifyFailureCode;
  /** Only when valid. */
  key?: {
    id: string;
    team_id: string;
    type: KeyType;
    environment: Environment;
    scopes: string[];
    /** Which of the key's values was presented: its current one, or the old one of a regeneration's grace period. */
    value: 'current' | 'old';
    /** Only for the old value: when it stops working (ISO 8601). */
    old_value_ends_at?: string;
  };
  /** When valid or RATE_LIMITED: the key's hourly limit, what is left of it, and the end of the current hour (epoch seconds). */
  ratelimit?: { limit: number; remaining: number; reset: number };
  /** Only when valid and the key names an identity. */
  identity?: { id: string; external_id: string; meta: Record<string, unknown> };
  /** When the key or its identity has named limits: each one this verification counts toward, after it. */
  limits?: Omit<LimitFigure, 'window_seconds'>[];
  /** When the key or its identity has credits: what is still spendable, after this verification. */
  credits?: { remaining: number };
}
