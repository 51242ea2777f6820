/** The reference of regenerate-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { idempotencyKey, ifMatch, json, managementErrors, ok, preconditionFailed, type Fits } from '../../http/openapi-common';
import { count, environment, instant, keyId, keyType } from '../../http/response-schemas';
import { regenerateKeyRequestSchema } from './schema';
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
    migration_info: z.strictObject({ old_key_expires_at: instant, grace_period_days: count, both_keys_valid: z.boolean() }),
  })
  .meta({ id: 'RegenerateKeyResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'regenerateKey',
  summary: 'Roll a key to a new value',
  description: 'A new value, shown once; the old one keeps working for the grace period (1–30 days, default 7) unless `revoke_immediately`.',
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
