/** The declaration of DELETE /functions/v1/delete-webhook-endpoint: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'delete-webhook-endpoint',
  method: 'DELETE',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'removes a webhook endpoint',
  operations: [...AUTHENTICATED, 'readWebhookEndpoint', 'deleteWebhookEndpoint'],
  ports: [...MANAGING, 'webhooks'],
  settings: [...MANAGEMENT_SETTINGS],
});
