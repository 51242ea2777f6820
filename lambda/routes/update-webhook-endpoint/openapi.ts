/** The reference of update-webhook-endpoint (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { error, header, ifMatch, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
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
  responses: {
    ...ok('200', 'The endpoint as it now is', endpointResponseSchema, {
      ETag: header('The endpoint\'s revision, quoted (`"3"`): send it back as `If-Match` to change the endpoint only if nobody changed it since'),
    }),
    ...managementErrors({
      '404': true,
      '409': '`CONFLICT`: another change of the endpoint (by the team or by the service) won a race with this one; read it again and retry',
    }),
    '412': error('`PRECONDITION_FAILED`: the endpoint changed since the `If-Match` tag was read (its current tag in `ETag`)', {
      ETag: header("The endpoint's current entity tag"),
    }),
  },
};

export const answerFitsReference = true satisfies Fits<WebhookEndpointResource, z.output<typeof endpointResponseSchema>['data']>;
