/**
 * The services of the functions that manage or deliver webhooks: the
 * environment's services plus the webhook ports, each built on first use:
 * KMS for secrets, SQS (and EventBridge Scheduler past 15 minutes) for the
 * queue, HTTPS to public addresses only.
 */
import { environmentServices, type Services } from './services';
import type { WebhookPorts } from '../domain/webhook-ports';
import { requiredSetting } from '../platform/environment';
import { kmsSecretBox } from '../platform/secret-box-kms';
import { STRICT_POLICY } from '../platform/webhook-address';
import { sqsDeliveryQueue } from '../platform/webhook-queue-sqs';
import { httpPoster } from '../platform/webhook-transport';

function environmentPorts(): WebhookPorts {
  let secrets: WebhookPorts['secrets'] | undefined;
  let queue: WebhookPorts['queue'] | undefined;
  return {
    policy: STRICT_POLICY,
    post: httpPoster({ policy: STRICT_POLICY }),
    get secrets() {
      return (secrets ??= kmsSecretBox());
    },
    get queue() {
      return (queue ??= sqsDeliveryQueue({
        queueUrl: requiredSetting('WEBHOOK_QUEUE_URL'),
        queueArn: requiredSetting('WEBHOOK_QUEUE_ARN'),
        groupName: requiredSetting('SCHEDULE_GROUP_NAME'),
        schedulerRoleArn: requiredSetting('SCHEDULER_ROLE_ARN'),
      }));
    },
  };
}

let withWebhooks: Services | undefined;

/** `environmentServices()` with the webhook ports; built once per process. */
export function webhookEnvironmentServices(): Services {
  if (withWebhooks) return withWebhooks;
  const base = environmentServices();
  const ports = environmentPorts();
  withWebhooks = { ...base, webhookPorts: () => ports };
  return withWebhooks;
}
