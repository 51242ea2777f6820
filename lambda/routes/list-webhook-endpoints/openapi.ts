/** The reference of list-webhook-endpoints (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { endpointListResponseSchema } from '../../http/webhook-response-schemas';
import { listEndpointsRequestSchema } from './schema';
import type { WebhookEndpointResource } from '../../domain/webhook-endpoints';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'listWebhookEndpoints',
  summary: "List a team's webhook endpoints",
  tags: ['Webhooks'],
  requestParams: { query: listEndpointsRequestSchema },
  responses: { ...ok('200', 'A page of endpoints (never a secret)', endpointListResponseSchema), ...managementErrors({}) },
};

export const answerFitsReference = true satisfies Fits<WebhookEndpointResource[], z.output<typeof endpointListResponseSchema>['data']>;
