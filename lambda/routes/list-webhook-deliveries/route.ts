/** The declaration of GET /functions/v1/list-webhook-deliveries: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { LIST_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'list-webhook-deliveries',
  method: 'GET',
  caller: 'manager',
  reach: 'live',
  input: 'query',
  summary: 'an endpoint’s delivery attempts, newest first, paged',
  operations: [...AUTHENTICATED, 'readWebhookEndpoint', 'readDeliveries'],
  ports: [...MANAGING, 'webhooks', 'deliveries'],
  settings: LIST_SETTINGS,
});
