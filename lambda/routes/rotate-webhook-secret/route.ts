/** The declaration of POST /functions/v1/rotate-webhook-secret: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'rotate-webhook-secret',
  method: 'POST',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'gives a webhook endpoint a new signing secret, the old one signing beside it for 24 hours',
  operations: [...AUTHENTICATED, 'readWebhookEndpoint', 'changeWebhookEndpoint'],
  ports: [...MANAGING, 'webhooks', 'secrets'],
  throttle: 'write',
  settings: [...MANAGEMENT_SETTINGS, 'WEBHOOK_SECRET_KEY_ARN'],
});
