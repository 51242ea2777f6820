/** The declaration of POST /functions/v1/create-webhook-endpoint: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'create-webhook-endpoint',
  method: 'POST',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'adds a webhook endpoint and returns its signing secret once',
  operations: [...AUTHENTICATED, 'readIdempotencyRecord', 'createWebhookEndpoint'],
  ports: [...MANAGING, 'idempotency', 'webhooks', 'secrets', 'policy'],
  throttle: 'write',
  settings: [...MANAGEMENT_SETTINGS, 'WEBHOOK_SECRET_KEY_ARN'],
});
