import * as z from 'zod/mini';

const DELIVERY_WORDS = 'must be a delivery id as the delivery list gives it (dlv_…)';
const EVENT_WORDS = 'must be an event id as a delivery gives it (msg_…)';
const ONE_OF = 'give exactly one of delivery_id (that delivery’s endpoint) or event_id (every endpoint that takes its type)';

/** Exactly one of a delivery id (that delivery's endpoint) or an event id (every endpoint that takes its type). */
export const redeliverRequestSchema = z
  .strictObject({
    delivery_id: z.optional(
      z
        .string({ error: 'must be a string' })
        .check(z.maxLength(84, DELIVERY_WORDS), z.regex(/^dlv_[0-9A-HJKMNP-TV-Z]{26}_[0-9A-HJKMNP-TV-Z]{26}$/, DELIVERY_WORDS)),
    ),
    event_id: z.optional(z.string({ error: 'must be a string' }).check(z.maxLength(30, EVENT_WORDS), z.regex(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/, EVENT_WORDS))),
  })
  .check(z.refine((input) => (input.delivery_id === undefined) !== (input.event_id === undefined), { error: ONE_OF, path: ['delivery_id'] }));
