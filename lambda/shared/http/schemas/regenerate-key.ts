import * as z from 'zod';
import { keyIdSchema } from './common';

/** Default grace period of a regeneration, in days. */
export const DEFAULT_GRACE_PERIOD_DAYS = 7;

export const regenerateKeyRequestSchema = z
  .strictObject({
    key_id: keyIdSchema,
    grace_period_days: z
      .int({ error: 'must be a whole number of days' })
      .min(1, 'must be between 1 and 30 days')
      .max(30, 'must be between 1 and 30 days')
      .optional(),
    revoke_immediately: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .superRefine((body, ctx) => {
    if (body.revoke_immediately && body.grace_period_days !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['grace_period_days'],
        message: 'cannot be combined with revoke_immediately: true (the old value stops working at once)',
      });
    }
  })
  .transform((body) => ({ ...body, grace_period_days: body.grace_period_days ?? DEFAULT_GRACE_PERIOD_DAYS }));

export type RegenerateKeyRequest = z.infer<typeof regenerateKeyRequestSchema>;
