/** The deliverer's ports: KMS to open secrets, HTTPS to public addresses only, SQS and (past 15 minutes) EventBridge Scheduler for retries. */
import { partialPorts } from './webhook-services';
import { requiredSetting } from '../platform/environment';
import { kmsSecretBox } from '../adapters/secret-box-kms';
import { STRICT_POLICY, systemResolver } from '../platform/webhook-address';
import { sqsDeliveryQueue } from '../adapters/webhook-queue-sqs';
import { scheduledRetries } from '../adapters/webhook-retry-schedules';
import { httpPoster } from '../adapters/webhook-transport';

export function deliveringPorts() {
  const later = scheduledRetries({
    queueArn: requiredSetting('WEBHOOK_QUEUE_ARN'),
    groupName: requiredSetting('SCHEDULE_GROUP_NAME'),
    schedulerRoleArn: requiredSetting('SCHEDULER_ROLE_ARN'),
  });
  return partialPorts({
    policy: STRICT_POLICY,
    resolve: systemResolver,
    secrets: kmsSecretBox(),
    post: httpPoster({ policy: STRICT_POLICY, resolver: systemResolver }),
    queue: sqsDeliveryQueue({ queueUrl: requiredSetting('WEBHOOK_QUEUE_URL') }, { later }),
  });
}
