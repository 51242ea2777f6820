/** The reference of adjust-credits (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { idempotencyKey, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { instant, meta, meterFields } from '../../http/response-schemas';
import { adjustCreditsRequestSchema } from './schema';
import type { AdjustedCredits } from '../../use-cases/credits';

const adjustedSchema = z
  .strictObject({
    key_id: z.string().optional(),
    identity_id: z.string().optional(),
    adjustment: z.strictObject({
      add: z
        .int()
        .positive()
        .optional()
        .meta({ description: 'Credits granted: spent after the refill allowance, soonest-expiring first; a refill never wipes them' }),
      set: z.int().min(0).optional().meta({ description: 'What is left of the refill allowance, set' }),
      expires_at: instant.nullable().meta({ description: 'When the grant stops being spendable; null: never' }),
      reason: z.string(),
    }),
    credits: meterFields.credits.meta({
      description:
        'Everything still spendable just after the adjustment; absent from a replay (`Idempotent-Replayed`): read the key or identity for the balance now',
    }),
  })
  .meta({ id: 'CreditsAdjusted' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'adjustCredits',
  summary: 'Adjust credits',
  description:
    'Adds a grant to a key’s or an identity’s credits (`add`, with `expires_at` or never expiring), or sets what is left of its refill allowance (`set`). Audited as `credits.adjusted`. Honours `Idempotency-Key`.',
  tags: ['Identities'],
  requestParams: { header: idempotencyKey },
  requestBody: { required: true, content: json(adjustCreditsRequestSchema(() => new Date())) },
  responses: {
    ...ok('200', 'The adjustment made', z.strictObject({ data: adjustedSchema, meta })),
    ...managementErrors({
      '404': true,
      '409': '`CONFLICT`: the key or identity has no credits (unlimited), or a request with this `Idempotency-Key` is being processed',
    }),
  },
};

export const answerFitsReference = true satisfies Fits<AdjustedCredits, z.output<typeof adjustedSchema>>;
