/** The reference of update-webhook-endpoint (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { ifMatch, json, managementErrors, ok, preconditionFailed, type Fits } from '../../http/openapi-common';
import { endpointResponseSchema } from '../../http/webhook-response-schemas';
import { updateEndpointRequestSchema } from './schema';
import type { WebhookEndpointResource } from '../../domain/webhook-endpoints';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'updateWebhookEndpoint',
  summary: 'Change a webhook endpoint',
  description: 'Enabling an endpoint the service disabled clears its reason and its run of failures.',
  tags: ['Webhooks'],
  requestParams: { header: z.object(ifMatch) },
  requestBody: { required: true, content: json(updateEndpointRequestSchema) },
  responses: { ...ok('200', 'The endpoint as it now is', endpointResponseSchema), ...managementErrors({ '404': true }), '412': preconditionFailed },
};

export const answerFitsReference = true satisfies Fits<WebhookEndpointResource, z.output<typeof endpointResponseSchema>['data']>;
