/** The reference of get-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { entityTag, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { keyResponseSchema } from '../../http/response-schemas';
import { getKeyRequestSchema } from './schema';
import type { KeyResource } from '../../domain/key-view';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getKey',
  summary: 'Read a key',
  tags: ['Keys'],
  requestParams: { query: getKeyRequestSchema },
  description: 'A deleted key is answered from its tombstone for 90 days (`state` "deleted", `deleted_at`), then 404.',
  responses: { ...ok('200', 'The key (never its value)', keyResponseSchema, entityTag), ...managementErrors({ '404': true }) },
};

/** The key a read answers fits the documented key. */
export const answerFitsReference = true satisfies Fits<KeyResource, z.output<typeof keyResponseSchema>['data']>;
