/** The reference of regenerate-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { idempotencyKey, ifMatch, json, managementErrors, ok, preconditionFailed, type Fits } from '../../http/openapi-common';
import { count, environment, instant, keyId, keyType } from '../../http/response-schemas';
import { regenerateKeyRequestSchema } from './schema';
import { GRACE_MODES } from '../../domain/grace-modes';
import type { RegenerateResponse } from '../../use-cases/regenerate-key';

export const regenerateKeyResponseSchema = z
  .strictObject({
    success: z.literal(true),
    new_key: z.string().nullable().meta({ description: 'The new value: shown here once, never again (null when an `Idempotency-Key` replays the answer)' }),
    key_info: z.strictObject({
      id: keyId,
      name: z.string(),
      key_type: keyType,
      environment,
      key_prefix: z.string(),
      last_four: z.string(),
      transition_ends_at: instant,
      regenerated_at: instant,
    }),
    migration_info: z.strictObject({
      old_key_expires_at: instant.meta({
        description: 'The hard maximum: under a use-driven grace mode the old value may end earlier (the key read shows when).',
      }),
      grace_period_days: count,
      both_keys_valid: z.boolean(),
      grace_mode: z.optional(z.enum(GRACE_MODES).meta({ description: 'Only when the request named one.' })),
      grace_minutes: z.optional(count.meta({ description: 'Under `first_use` and `until_idle` (1–10,080).' })),
      warnings: z.optional(z.array(z.string()).meta({ description: 'Only when `grace_minutes` is shorter than the platform stages’ authorizer cache TTL' })),
    }),
  })
  .meta({ id: 'RegenerateKeyResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'regenerateKey',
  summary: 'Roll a key to a new value',
  description:
    'A new value, shown once; the old one keeps working for the grace period (1–30 days, default 7) unless `revoke_immediately`. ' +
    '`grace_mode` ends it earlier by use: `first_use` (`grace_minutes` after the new value’s first VALID use) or `until_idle` ' +
    '(once the new value is used, after `grace_minutes` without a use of the old one); `grace_period_days` stays the hard maximum.',
  tags: ['Keys'],
  requestParams: { header: idempotencyKey.extend(ifMatch) },
  requestBody: { required: true, content: json(regenerateKeyRequestSchema) },
  responses: {
    ...ok('200', 'The new value and the transition', regenerateKeyResponseSchema),
    ...managementErrors({ '404': true, '409': '`CONFLICT`: the key is already in a transition', '422': true }),
    '412': preconditionFailed,
  },
};

/** The regenerate use case's answer fits the documented response. */
export const answerFitsReference = true satisfies Fits<RegenerateResponse, z.output<typeof regenerateKeyResponseSchema>>;
