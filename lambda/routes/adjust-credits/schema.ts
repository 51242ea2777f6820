import * as z from 'zod/mini';
import { keyIdSchema, text } from '../../http/schemas/common';
import { identityIdSchema } from '../../http/schemas/identities';
import { creditAmountSchema } from '../../http/schemas/meters';
import { keyFieldSchemas } from '../../http/schemas/key-fields';

/** Exactly one owner (`key_id` or `identity_id`) and one change (`add` or `set`); `expires_at` only on a grant. */
export function adjustCreditsRequestSchema(now: () => Date) {
  return z
    .strictObject({
      key_id: z.optional(keyIdSchema),
      identity_id: z.optional(identityIdSchema),
      add: z.optional(creditAmountSchema(1)),
      set: z.optional(creditAmountSchema(0)),
      expires_at: z.optional(keyFieldSchemas(now).expires_at),
      reason: text(500).check(z.minLength(1, 'must say why (at most 500 characters)')),
    })
    .check(
      z.superRefine((body, ctx) => {
        if ((body.key_id === undefined) === (body.identity_id === undefined)) {
          ctx.addIssue({ code: 'custom', path: ['key_id'], message: 'send exactly one of key_id and identity_id' });
        }
        if ((body.add === undefined) === (body.set === undefined)) ctx.addIssue({ code: 'custom', path: ['add'], message: 'send exactly one of add and set' });
        if (body.set !== undefined && body.expires_at !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'applies to a grant (add) only' });
        }
      }),
    );
}

export type AdjustCreditsRequest = z.output<ReturnType<typeof adjustCreditsRequestSchema>>;
