/**
 * The create request, validated strictly: unknown fields, wrong types and
 * every validation rule (docs/decisions.md) are reported together.
 */
import * as z from 'zod/mini';
import { DEFAULT_SCOPES, KEYS_MANAGE } from '../../contract/scopes';
import { KEY_TYPE_RULES } from '../../domain/key-type-rules';
import { keyFieldSchemas } from '../../http/schemas/key-fields';
import { teamIdSchema } from '../../http/schemas/common';
import { identityIdSchema } from '../../http/schemas/identities';
import { creditsSchema, limitsSchema } from '../../http/schemas/meters';

export function createKeyRequestSchema(now: () => Date) {
  const fields = keyFieldSchemas(now);
  return z
    .strictObject({
      name: fields.name,
      type: z.enum(['pk', 'sk'], { error: 'must be "pk" or "sk"' }),
      environment: z.enum(['test', 'live'], { error: 'must be "test" or "live"' }),
      team_id: teamIdSchema,
      scopes: z._default(fields.scopes, [...DEFAULT_SCOPES]),
      domains: z._default(fields.domains, []),
      ip_whitelist: z._default(fields.ip_whitelist, []),
      rate_limit: z.optional(fields.rate_limit),
      expires_at: z.optional(fields.expires_at),
      description: z.optional(fields.description),
      on_leak: z.optional(fields.on_leak),
      // null: no identity, as when it is left out (a client may send back the null it reads elsewhere).
      identity_id: z.optional(z.nullable(identityIdSchema)),
      limits: z.optional(limitsSchema),
      credits: z.optional(creditsSchema),
    })
    .check(
      z.superRefine((body, ctx) => {
        if (body.type === 'pk' && body.scopes.includes(KEYS_MANAGE)) {
          ctx.addIssue({ code: 'custom', path: ['scopes'], message: KEY_TYPE_RULES.manageOnPk });
        }
        if (body.type === 'sk' && body.domains.length > 0) {
          ctx.addIssue({ code: 'custom', path: ['domains'], message: KEY_TYPE_RULES.domainsOnSk });
        }
      }),
    );
}

export type CreateKeyRequest = z.output<ReturnType<typeof createKeyRequestSchema>>;
