/** The reference of verify-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { commonHeaders, error, json, rateLimitHeaders, retryAfter, shared, type Fits } from '../../http/openapi-common';
import { count, environment, instant, keyId, keyType } from '../../http/response-schemas';
import { verifyKeyRequestSchema } from './schema';
import type { VerifyKeyResponse } from './schema';

export const verifyKeyResponseSchema = z
  .strictObject({
    valid: z.boolean(),
    code: z.enum([
      'VALID',
      'NOT_FOUND',
      'EXPIRED',
      'REVOKED',
      'INACTIVE',
      'IP_NOT_ALLOWED',
      'ORIGIN_NOT_ALLOWED',
      'SCOPE_DENIED',
      'RATE_LIMITED',
      'USAGE_EXCEEDED',
    ]),
    key: z
      .strictObject({
        id: keyId,
        team_id: z.guid(),
        type: keyType,
        environment,
        scopes: z.array(z.string()),
        value: z
          .enum(['current', 'old'])
          .meta({ description: "Which of the key's values was presented: its current one, or the old one of a regeneration's grace period" }),
        old_value_ends_at: instant.optional().meta({ description: 'Only for the old value: when it stops working' }),
      })
      .optional(),
    ratelimit: z.strictObject({ limit: count, remaining: count, reset: z.int().meta({ description: 'End of the current hour, epoch seconds' }) }).optional(),
    identity: z
      .strictObject({ id: z.string(), external_id: z.string(), meta: z.record(z.string(), z.unknown()) })
      .optional()
      .meta({
        description:
          'Only when valid and the key names an identity: its id, external_id and meta (as a process read it in the last 10 seconds: a change shows within 10 s)',
      }),
    limits: z
      .array(
        z.strictObject({
          name: z.string(),
          owner: z.enum(['key', 'identity']),
          limit: count,
          remaining: count,
          reset: z.int().meta({ description: 'End of the limit’s current window, epoch seconds' }),
        }),
      )
      .optional()
      .meta({
        description:
          'When the key or its identity has named limits: each one this verification counts toward (its scope covers one asked), as it stands after it',
      }),
    credits: z
      .strictObject({ remaining: count })
      .optional()
      .meta({ description: 'When the key or its identity has credits (the key’s are charged first): everything still spendable after this verification' }),
  })
  .meta({ id: 'VerifyKeyResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'verifyKey',
  summary: 'Verify a key value',
  description:
    "For the platform's own services: 200 whether or not the value is valid (`valid`, `code`). The value is in the body, not a header. No Authorization header; a valid value's use counts toward its rate limit.",
  tags: ['Verification'],
  security: [],
  requestBody: { required: true, content: json(verifyKeyRequestSchema) },
  responses: {
    '200': {
      description: 'The verdict',
      headers: z.object({ ...commonHeaders, ...rateLimitHeaders, 'Retry-After': retryAfter['Retry-After'].optional() }),
      content: json(verifyKeyResponseSchema),
    },
    '400': shared['400'],
    '405': shared['405'],
    '413': shared['413'],
    '415': shared['415'],
    '429': error('`RATE_LIMITED`: too many unknown values from this source in a minute', retryAfter),
    '500': shared['500'],
    '503': shared['503'],
  },
};

/** The verify answer's body fits the documented response. */
export const answerFitsReference = true satisfies Fits<VerifyKeyResponse, z.output<typeof verifyKeyResponseSchema>>;
