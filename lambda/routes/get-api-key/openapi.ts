/** The reference of get-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { entityTag, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { apiKeySchema, count, instant, meta } from '../../http/response-schemas';
import { getKeyRequestSchema } from './schema';
import type { KeyResource } from '../../domain/key-view';
import type { TransitionView } from '../../domain/transition-activity';

const network = z.string().meta({ description: 'The caller’s network: an IPv4 /24 or an IPv6 /48, never a full address', example: '203.0.113.0/24' });

/** A key read: the key, and while it is in a transition who still sends its old value (docs/verification.md). */
export const keyReadResponseSchema = z
  .strictObject({
    data: apiKeySchema.extend({
      old_value: z
        .strictObject({
          last_four: z.string(),
          ends_at: instant.meta({ description: 'When it stops working: the hard maximum, or the end use decided (grace modes)' }),
          last_used_at: instant.nullable(),
          uses_last_hour: count,
          sources: z
            .array(z.strictObject({ source: network, uses: count, last_used_at: instant }))
            .max(5)
            .meta({ description: 'At most 5, the most uses first' }),
        })
        .optional()
        .meta({ description: 'Only while the key is in a transition (`state` "in_transition")' }),
      current_value: z
        .strictObject({ last_four: z.string(), last_used_at: instant.nullable() })
        .optional()
        .meta({ description: 'Only while the key is in a transition: the new value’s last use' }),
    }),
    meta,
  })
  .meta({ id: 'KeyReadResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getKey',
  summary: 'Read a key',
  tags: ['Keys'],
  requestParams: { query: getKeyRequestSchema },
  description: 'A deleted key is answered from its tombstone for 90 days (`state` "deleted", `deleted_at`), then 404.',
  responses: { ...ok('200', 'The key (never its value)', keyReadResponseSchema, entityTag), ...managementErrors({ '404': true }) },
};

/** The key a read answers fits the documented key. */
export const answerFitsReference = true satisfies Fits<KeyResource & Partial<TransitionView>, z.output<typeof keyReadResponseSchema>['data']>;
