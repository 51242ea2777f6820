import * as z from 'zod/mini';
import { int32, keyIdSchema, then } from '../../http/schemas/common';

/** Default grace period of a regeneration, in days. */
export const DEFAULT_GRACE_PERIOD_DAYS = 7;

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
    })
    .check(
      z.superRefine((body, ctx) => {
        if (body.revoke_immediately && body.grace_period_days !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['grace_period_days'],
            message: 'cannot be combined with revoke_immediately: true (the old value stops working at once)',
          });
        }
      }),
    ),
  (body) => ({ ...body, grace_period_days: body.grace_period_days ?? DEFAULT_GRACE_PERIOD_DAYS }),
);

export type RegenerateKeyRequest = z.output<typeof regenerateKeyRequestSchema>;
