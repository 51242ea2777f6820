/** The reference of get-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { entityTag, managementErrors, ok } from '../../http/openapi-common';
import { keyResponseSchema } from '../../http/response-schemas';
import { getKeyRequestSchema } from './schema';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getKey',
  summary: 'Read a key',
  tags: ['Keys'],
  requestParams: { query: getKeyRequestSchema },
  description: 'A deleted key is answered from its tombstone for 90 days (`state` "deleted", `deleted_at`), then 404.',
  responses: { ...ok('200', 'The key (never its value)', keyResponseSchema, entityTag), ...managementErrors({ '404': true }) },
};
