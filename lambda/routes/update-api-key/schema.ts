import * as z from 'zod/mini';
import { keyIdSchema } from '../../http/schemas/common';
import { keyFieldSchemas } from '../../http/schemas/key-fields';
import { identityIdSchema } from '../../http/schemas/identities';
import { creditsSchema, limitsSchema } from '../../http/schemas/meters';

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
      on_leak: z.optional(fields.on_leak),
      is_active: z.optional(z.boolean({ error: 'must be true or false' })),
      identity_id: z.optional(z.nullable(identityIdSchema)),
      // The whole list (`[]`: none); credits set the balance (`null`: unlimited).
      limits: z.optional(limitsSchema),
      credits: z.optional(creditsSchema),
    })
    .check(
      z.superRefine(
        (body, ctx) => {
          if (Object.keys(body).every((field) => field === 'key_id')) {
            ctx.addIssue({
              code: 'custom',
              path: [],
              message:
                'no field to change was sent (send at least one of name, description, scopes, domains, ip_whitelist, rate_limit, expires_at, on_leak, is_active)',
            });
          }
        },
        // A body naming a field an update cannot take (type, a misspelt name) did send something to change: that refusal says it.
        { when: (payload) => !payload.issues.some((issue) => issue.code === 'unrecognized_keys') },
      ),
    );
}

const FIXED = 'cannot be changed: it is set when the key is created (create a new key to change it)';
const KEPT = 'cannot be changed: the service keeps it';

/**
 * The key resource's fields that an update cannot set, and why: a client that
 * sends back the key it read learns which fields to leave out.
 */
export const READ_ONLY_KEY_FIELDS: Readonly<Record<string, string>> = {
  id: 'cannot be changed: name the key with key_id',
  key: 'cannot be changed: regenerate the key for a new value',
  key_prefix: KEPT,
  last_four: KEPT,
  type: FIXED,
  environment: FIXED,
  team_id: FIXED,
  created_by: FIXED,
  created_at: FIXED,
  last_used_at: KEPT,
  updated_at: KEPT,
  transition_ends_at: 'cannot be changed: it is set by a regenerate',
  state: 'cannot be set: send is_active to disable or enable the key',
  deleted_at: KEPT,
};

export type UpdateKeyRequest = z.output<ReturnType<typeof updateKeyRequestSchema>>;
