/** The reference of update-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { entityTag, ifMatch, json, managementErrors, now, ok, preconditionFailed, type Fits } from '../../http/openapi-common';
import { keyResponseSchema } from '../../http/response-schemas';
import { updateKeyRequestSchema } from './schema';
import type { KeyResource } from '../../domain/key-view';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'updateKey',
  summary: "Change a key's settings, disable or enable it",
  tags: ['Keys'],
  requestParams: { header: z.object(ifMatch) },
  requestBody: { required: true, content: json(updateKeyRequestSchema(now)) },
  responses: {
    ...ok('200', 'The key after the change', keyResponseSchema, entityTag),
    ...managementErrors({
      '404': '`NOT_FOUND`: no key of the team has `key_id`, or no identity of the team has the `identity_id` sent',
      '409': '`CONFLICT`: the change would leave the team without a manager key, or raced another change',
    }),
    '412': preconditionFailed,
  },
};

/** The key an update answers fits the documented key. */
export const answerFitsReference = true satisfies Fits<KeyResource, z.output<typeof keyResponseSchema>['data']>;
