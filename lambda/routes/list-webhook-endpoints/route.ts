/** The declaration of GET /functions/v1/list-webhook-endpoints: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { LIST_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'list-webhook-endpoints',
  method: 'GET',
  caller: 'manager',
  reach: 'live',
  input: 'query',
  summary: "the team's webhook endpoints, paged",
  operations: [...AUTHENTICATED, 'listWebhookEndpoints'],
  ports: [...MANAGING, 'webhooks'],
  settings: LIST_SETTINGS,
});
