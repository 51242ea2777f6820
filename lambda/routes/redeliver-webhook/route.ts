/** The declaration of POST /functions/v1/redeliver-webhook: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'redeliver-webhook',
  method: 'POST',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'sends an event again at once with its original webhook-id',
  operations: [...AUTHENTICATED, 'readWebhookEndpoint', 'listWebhookEndpoints', 'readDeliveries', 'readWebhookEvent', 'auditWebhookAction'],
  ports: [...MANAGING, 'webhooks', 'deliveries', 'queue'],
  settings: [...MANAGEMENT_SETTINGS, 'WEBHOOK_QUEUE_URL', 'WEBHOOK_QUEUE_ARN', 'SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN'],
});
