/** The reference of generate-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { idempotencyKey, json, managementErrors, now, ok, type Fits } from '../../http/openapi-common';
import { keyFields, meta } from '../../http/response-schemas';
import { createKeyRequestSchema } from './schema';
import type { CreatedKey } from '../../use-cases/create-key';

export const createdKeySchema = z
  .strictObject({
    ...keyFields,
    key: z.string().nullable().meta({ description: 'The full value: shown here once, never again (null when an `Idempotency-Key` replays the answer)' }),
  })
  .meta({ id: 'CreatedApiKey' });

export const createKeyResponseSchema = z.strictObject({ data: createdKeySchema, meta }).meta({ id: 'CreateKeyResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'createKey',
  summary: 'Create a key',
  description: 'Issues a key; its value is in this answer only.',
  tags: ['Keys'],
  requestParams: { header: idempotencyKey },
  requestBody: { required: true, content: json(createKeyRequestSchema(now)) },
  responses: {
    ...ok('201', 'The key, with its value (`data.key`) shown this once', createKeyResponseSchema),
    ...managementErrors({
      '404': '`NOT_FOUND`: no identity of the team has this `identity_id`',
      '409': '`CONFLICT`: a request with this Idempotency-Key is being processed',
      '422': true,
    }),
  },
};

/** The create use case's answer fits the documented key (the value nulled on a replay). */
export const answerFitsReference = true satisfies Fits<CreatedKey, z.output<typeof createdKeySchema>>;
