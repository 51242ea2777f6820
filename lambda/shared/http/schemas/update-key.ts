import * as z from 'zod/mini';
import { keyIdSchema } from './common';
import { keyFieldSchemas } from './create-key';

/**
 * An update: the key and at least one field to change, each validated as a
 * create validates it. Rules that depend on the key (domains only on `pk`,
 * no `keys.manage` on `pk`) and on the caller (scopes it holds) are checked
 * by the service once the key is read.
 */
export function updateKeyRequestSchema(now: () => Date) {
  const fields = keyFieldSchemas(now);
  return z
    .strictObject({
      key_id: keyIdSchema,
      name: z.optional(fields.name),
      description: z.optional(fields.description),
      scopes: z.optional(fields.scopes),
      domains: z.optional(fields.domains),
      ip_whitelist: z.optional(fields.ip_whitelist),
      rate_limit: z.optional(fields.rate_limit),
      expires_at: z.optional(fields.expires_at),
      is_active: z.optional(z.boolean({ error: 'must be true or false' })),
    })
    .check(
      z.superRefine((body, ctx) => {
        if (Object.keys(body).every((field) => field === 'key_id')) {
          ctx.addIssue({
            code: 'custom',
            path: [],
            message: 'names no change: send at least one of name, description, scopes, domains, ip_whitelist, rate_limit, expires_at, is_active',
          });
        }
      }),
    );
}

export type UpdateKeyRequest = z.output<ReturnType<typeof updateKeyRequestSchema>>;
