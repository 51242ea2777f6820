/** Named limits and credits as the key and identity routes validate them (domain/meters.ts; docs/limits.md). */
import * as z from 'zod/mini';
import { LIMIT_NAME, MAX_COST, MAX_LIMITS } from '../../domain/meters';
import { int32, scopeSchema } from './common';

/** The longest window: 30 days. */
export const MAX_WINDOW_SECONDS = 2_592_000;
const MAX_LIMIT = 1_000_000_000;
const MAX_CREDITS = 1_000_000_000;

const whole = (words: string, min: number, max: number) =>
  int32(z.int({ error: `must be a whole number ${words}` }).check(z.minimum(min, `must be at least ${min}`), z.maximum(max, `must be at most ${max}`)));

export const namedLimitSchema = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .check(z.maxLength(32, { error: 'must be 1 to 32 of a-z, 0-9, _ and -', abort: true }), z.regex(LIMIT_NAME, 'must be 1 to 32 of a-z, 0-9, _ and -')),
  limit: whole('of verifications per window', 1, MAX_LIMIT),
  window_seconds: whole('of seconds', 1, MAX_WINDOW_SECONDS),
  scope: z.optional(scopeSchema),
});

export const limitsSchema = z.array(namedLimitSchema, { error: 'must be a list of limits' }).check(
  z.maxLength(MAX_LIMITS, `must hold at most ${MAX_LIMITS} limits`),
  z.superRefine((limits, ctx) => {
    const seen = new Set<string>();
    limits.forEach((limit, i) => {
      if (seen.has(limit.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `must be unique: ${limit.name} is named twice` });
      seen.add(limit.name);
    });
  }),
);

export const refillSchema = z.strictObject({
  interval: z.enum(['daily', 'monthly'], { error: 'must be "daily" or "monthly"' }),
  amount: whole('of credits', 1, MAX_CREDITS),
  day_of_month: z.optional(whole('(a day of the month)', 1, 31)),
});

/** `null`: unlimited. */
export const creditsSchema = z.nullable(
  z
    .strictObject({
      remaining: whole('of credits', 0, MAX_CREDITS),
      refill: z.optional(z.nullable(refillSchema)),
    })
    .check(
      z.superRefine((credits, ctx) => {
        if (credits.refill?.interval === 'daily' && credits.refill.day_of_month !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['refill', 'day_of_month'], message: 'applies to a monthly refill only' });
        }
      }),
    ),
);

export type CreditsInput = z.output<typeof creditsSchema>;

/** What one verification costs in credits (the verify request, the authorizer's route table). */
export const costSchema = whole('of credits', 0, MAX_COST);

/** An amount of credits from `min` to 10^9 (a grant from 1, an allowance set from 0). */
export const creditAmountSchema = (min: number) => whole('of credits', min, MAX_CREDITS);
