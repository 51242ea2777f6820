/** The reference of create-webhook-endpoint (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { idempotencyKey, json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { meta } from '../../http/response-schemas';
import { secret, webhookEndpointSchema } from '../../http/webhook-response-schemas';
import { createEndpointRequestSchema } from './schema';
import type { NewEndpoint, ReplayedEndpoint } from '../../use-cases/webhook-endpoints';

export const createdEndpointResponseSchema = z
  .strictObject({
    data: webhookEndpointSchema.extend({
      secret: secret.nullable().meta({
        description: 'The signing secret (`whsec_` and base64): shown in this answer only; null when an `Idempotency-Key` replays the answer',
      }),
    }),
    meta,
  })
  .meta({ id: 'CreatedWebhookEndpointResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'createWebhookEndpoint',
  summary: 'Add a webhook endpoint',
  description:
    'The signing secret (`whsec_…`) is in this answer only. `url` must be https in AWS (http too locally), carry no user information, and not name or resolve to a loopback, private, link-local, unique-local or unspecified address. A team has at most 10 endpoints.',
  tags: ['Webhooks'],
  requestParams: { header: idempotencyKey },
  requestBody: { required: true, content: json(createEndpointRequestSchema) },
  responses: {
    ...ok(
      '201',
      'The endpoint, with its signing secret (shown once; a replay under the same `Idempotency-Key` answers `secret: null`)',
      createdEndpointResponseSchema,
    ),
    ...managementErrors({ '409': '`CONFLICT`: a request with this Idempotency-Key is being processed', '422': true }),
  },
};

export const answerFitsReference = true satisfies Fits<NewEndpoint | ReplayedEndpoint, z.output<typeof createdEndpointResponseSchema>['data']>;
