/** The reference of redeliver-webhook (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { queuedSchema } from '../../http/webhook-response-schemas';
import { redeliverRequestSchema } from './schema';
import type { QueuedDeliveries } from '../../use-cases/webhook-actions';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'redeliverWebhook',
  summary: 'Send an event again',
  description:
    'One attempt at once (not on the retry schedule) with the original `webhook-id`, so a receiver that already has the event can tell. By `delivery_id`: to that delivery’s endpoint; by `event_id`: to every active endpoint of the team that takes its type.',
  tags: ['Webhooks'],
  requestBody: { required: true, content: json(redeliverRequestSchema) },
  responses: {
    ...ok('202', 'Queued: the attempt is made at once, its outcome in the endpoint’s delivery list', queuedSchema),
    ...managementErrors({ '404': true, '409': '`CONFLICT`: the endpoint is disabled' }),
  },
};

export const answerFitsReference = true satisfies Fits<QueuedDeliveries, z.output<typeof queuedSchema>['data']>;
