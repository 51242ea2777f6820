/** The reference of delete-webhook-endpoint (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { meta } from '../../http/response-schemas';
import { endpointId } from '../../http/webhook-response-schemas';
import { deleteEndpointRequestSchema } from './schema';

export const deletedEndpointResponseSchema = z
  .strictObject({ data: z.strictObject({ deleted: z.literal(true), id: endpointId }), meta })
  .meta({ id: 'DeletedWebhookEndpointResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'deleteWebhookEndpoint',
  summary: 'Remove a webhook endpoint',
  tags: ['Webhooks'],
  requestBody: { required: true, content: json(deleteEndpointRequestSchema) },
  responses: { ...ok('200', 'The endpoint is gone', deletedEndpointResponseSchema), ...managementErrors({ '404': true }) },
};

export const answerFitsReference = true satisfies Fits<{ deleted: true; id: string }, z.output<typeof deletedEndpointResponseSchema>['data']>;
