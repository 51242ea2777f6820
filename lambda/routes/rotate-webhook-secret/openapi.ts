/** The reference of rotate-webhook-secret (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { json, managementErrors, ok, type Fits } from '../../http/openapi-common';
import { instant, meta } from '../../http/response-schemas';
import { secret, webhookEndpointSchema } from '../../http/webhook-response-schemas';
import { rotateSecretRequestSchema } from './schema';
import type { rotateSecret } from '../../use-cases/webhook-endpoints';

export const rotatedSecretResponseSchema = z
  .strictObject({
    data: webhookEndpointSchema.extend({
      secret,
      previous_secret_expires_at: instant.meta({ description: 'Until then every delivery carries a signature with each secret' }),
    }),
    meta,
  })
  .meta({ id: 'RotatedWebhookSecretResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'rotateWebhookSecret',
  summary: "Rotate a webhook endpoint's signing secret",
  description:
    'The new secret is in this answer only. For 24 hours `webhook-signature` carries two signatures, one with each secret, so a receiver can switch without missing a delivery.',
  tags: ['Webhooks'],
  requestBody: { required: true, content: json(rotateSecretRequestSchema) },
  responses: { ...ok('200', 'The endpoint with its new secret (shown once)', rotatedSecretResponseSchema), ...managementErrors({ '404': true }) },
};

export const answerFitsReference = true satisfies Fits<Awaited<ReturnType<typeof rotateSecret>>, z.output<typeof rotatedSecretResponseSchema>['data']>;
