/** The declaration of PATCH /functions/v1/update-webhook-endpoint: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'update-webhook-endpoint',
  method: 'PATCH',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'changes a webhook endpoint (URL, filter, description, on or off)',
  operations: [...AUTHENTICATED, 'readWebhookEndpoint', 'changeWebhookEndpoint'],
  ports: [...MANAGING, 'webhooks', 'policy'],
  settings: [...MANAGEMENT_SETTINGS],
});
