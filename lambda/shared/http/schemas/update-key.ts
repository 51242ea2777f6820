import * as z from 'zod';
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
      name: fields.name.optional(),
      description: fields.description.optional(),
      scopes: fields.scopes.optional(),
      domains: fields.domains.optional(),
      ip_whitelist: fields.ip_whitelist.optional(),
      rate_limit: fields.rate_limit.optional(),
      expires_at: fields.expires_at.optional(),
      is_active: z.boolean({ error: 'must be true or false' }).optional(),
    })
    .superRefine((body, ctx) => {
      if (Object.keys(body).every((field) => field === 'key_id')) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: 'names no change: send at least one of name, description, scopes, domains, ip_whitelist, rate_limit, expires_at, is_active',
        });
      }
    });
}

export type UpdateKeyRequest = z.infer<ReturnType<typeof updateKeyRequestSchema>>;
