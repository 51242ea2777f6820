/** The declaration of POST /functions/v1/send-test-webhook: dependency-free, read by the CDK app at synth. */
import { MANAGING } from '../../contract/ports';
import { defineRoute } from '../../contract/routes';
import { MANAGEMENT_SETTINGS } from '../../contract/env-names';
import { AUTHENTICATED } from '../../contract/store-operations';

export const route = defineRoute({
  name: 'send-test-webhook',
  method: 'POST',
  caller: 'manager',
  reach: 'live',
  input: 'body',
  summary: 'delivers a webhook.test event to one endpoint',
  operations: [...AUTHENTICATED, 'readWebhookEndpoint', 'keepWebhookEvent', 'auditWebhookAction'],
  ports: [...MANAGING, 'webhooks', 'deliveries', 'queue'],
  settings: [...MANAGEMENT_SETTINGS, 'WEBHOOK_QUEUE_URL', 'WEBHOOK_QUEUE_ARN', 'SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN'],
});
