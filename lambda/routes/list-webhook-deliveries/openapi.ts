/** The reference of list-webhook-deliveries (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { pageMeta } from '../../http/response-schemas';
import { deliverySchema } from '../../http/webhook-response-schemas';
import { listDeliveriesRequestSchema } from './schema';
import type { DeliveryResource } from '../../domain/webhook-endpoints';

export const deliveryListResponseSchema = z.strictObject({ data: z.array(deliverySchema), meta: pageMeta }).meta({ id: 'WebhookDeliveryListResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'listWebhookDeliveries',
  summary: "List an endpoint's delivery attempts",
  description: 'Newest first, kept 30 days: each attempt with its status code or network error and duration.',
  tags: ['Webhooks'],
  requestParams: { query: listDeliveriesRequestSchema },
  responses: { ...ok('200', 'A page of attempts, newest first', deliveryListResponseSchema), ...managementErrors({ '404': true }) },
};

export const answerFitsReference = true satisfies Fits<DeliveryResource[], z.output<typeof deliveryListResponseSchema>['data']>;
