/** The reference of delete-api-key: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { ifMatch, json, managementErrors, ok, preconditionFailed, type Fits } from '../../http/openapi-common';
import { count, environment, instant, keyId, keyType } from '../../http/response-schemas';
import { deleteKeyRequestSchema } from './schema';
import type { DeleteResponse } from '../../use-cases/delete-key';

export const deleteKeyResponseSchema = z
  .strictObject({
    success: z.literal(true),
    message: z.string(),
    deleted_key: z.strictObject({
      id: keyId,
      name: z.string(),
      key_type: keyType,
      environment,
      last_four: z.string(),
      created_at: instant,
      deleted_at: instant,
      deleted_by: z.string(),
    }),
    audit_info: z.strictObject({ reason: z.string().nullable(), last_used_at: instant.nullable(), total_requests: count, usage_last_30_days: count }),
  })
  .meta({ id: 'DeleteKeyResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'deleteKey',
  summary: 'Delete a key',
  description: 'Every value stops working at once; metadata kept 90 days, audit two years, usage for good.',
  tags: ['Keys'],
  requestParams: { header: z.object(ifMatch) },
  requestBody: { required: true, content: json(deleteKeyRequestSchema) },
  responses: {
    ...ok('200', 'What was deleted, with its usage', deleteKeyResponseSchema),
    ...managementErrors({ '404': true, '409': "`CONFLICT`: the team's last manager key" }),
    '412': preconditionFailed,
  },
};

/** The delete use case's answer fits the documented response. */
export const answerFitsReference = true satisfies Fits<DeleteResponse, z.output<typeof deleteKeyResponseSchema>>;
