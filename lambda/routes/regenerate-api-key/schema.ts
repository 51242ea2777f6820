import * as z from 'zod/mini';
import { int32, keyIdSchema, then } from '../../http/schemas/common';
import { DEFAULT_GRACE_MINUTES, GRACE_MODES, MAX_GRACE_MINUTES, MIN_GRACE_MINUTES } from '../../domain/grace-modes';

/** Default grace period of a regeneration, in days. */
export const DEFAULT_GRACE_PERIOD_DAYS = 7;

const GRACE_MINUTES_RANGE = `must be between ${MIN_GRACE_MINUTES} and ${MAX_GRACE_MINUTES} minutes`;

export const regenerateKeyRequestSchema = then(
  z
    .strictObject({
      key_id: keyIdSchema,
      grace_period_days: z.optional(
        int32(
          z
            .int({ error: 'must be a whole number of days' })
            .check(z.minimum(1, 'must be between 1 and 30 days'), z.maximum(30, 'must be between 1 and 30 days')),
        ),
      ),
      revoke_immediately: z._default(z.boolean({ error: 'must be true or false' }), false),
      grace_mode: z.optional(z.enum(GRACE_MODES, { error: `must be one of ${GRACE_MODES.join(', ')}` })),
      grace_minutes: z.optional(
        int32(
          z
            .int({ error: 'must be a whole number of minutes' })
            .check(z.minimum(MIN_GRACE_MINUTES, GRACE_MINUTES_RANGE), z.maximum(MAX_GRACE_MINUTES, GRACE_MINUTES_RANGE)),
        ),
      ),
    })
    .check(
      z.superRefine((body, ctx) => {
        const atOnce = 'cannot be combined with revoke_immediately: true (the old value stops working at once)';
        if (body.revoke_immediately && body.grace_period_days !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['grace_period_days'], message: atOnce });
        }
        if (body.revoke_immediately && body.grace_mode !== undefined) ctx.addIssue({ code: 'custom', path: ['grace_mode'], message: atOnce });
        if (body.grace_minutes !== undefined && (body.grace_mode === undefined || body.grace_mode === 'fixed')) {
          ctx.addIssue({ code: 'custom', path: ['grace_minutes'], message: 'needs grace_mode "first_use" or "until_idle"' });
        }
      }),
    ),
  (body) => ({
    key_id: body.key_id,
    grace_period_days: body.grace_period_days ?? DEFAULT_GRACE_PERIOD_DAYS,
    revoke_immediately: body.revoke_immediately,
    // Absent when not sent: the answer then keeps the shape it had before grace modes.
    ...(body.grace_mode === undefined ? {} : { grace_mode: body.grace_mode }),
    ...(body.grace_mode === 'first_use' || body.grace_mode === 'until_idle' ? { grace_minutes: body.grace_minutes ?? DEFAULT_GRACE_MINUTES } : {}),
  }),
);

export type RegenerateKeyRequest = z.output<typeof regenerateKeyRequestSchema>;
