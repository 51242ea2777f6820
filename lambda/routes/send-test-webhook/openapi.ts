/** The reference of send-test-webhook (read by api/openapi.ts only). */
import type * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { queuedSchema } from '../../http/webhook-response-schemas';
import { sendTestRequestSchema } from './schema';
import type { QueuedDeliveries } from '../../use-cases/webhook-actions';

export const operation: ZodOpenApiOperationObject = {
  operationId: 'sendTestWebhook',
  summary: 'Send a test event',
  description: 'Delivers a `webhook.test` event to the endpoint, signed and retried as any event.',
  tags: ['Webhooks'],
  requestBody: { required: true, content: json(sendTestRequestSchema) },
  responses: {
    ...ok('202', 'Queued: the attempt is made at once, its outcome in the endpoint’s delivery list', queuedSchema),
    ...managementErrors({ '404': true, '409': '`CONFLICT`: the endpoint is disabled' }),
  },
};

export const answerFitsReference = true satisfies Fits<QueuedDeliveries, z.output<typeof queuedSchema>['data']>;
