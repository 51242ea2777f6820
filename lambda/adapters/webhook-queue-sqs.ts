/**
 * The delivery queue in AWS: a delivery due within 15 minutes is an SQS
 * message with that delay. A later one (a retry 30 minutes to 10 hours
 * ahead) goes to `later`, given only to the deliverer: EventBridge Scheduler
 * one-shot schedules that send the same message at its time
 * (webhook-retry-schedules.ts). The routes that queue a delivery only ever
 * queue it at once, so their bundles carry no Scheduler client.
 */
import { SendMessageCommand, SQSClient, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { QUEUE_MAX_DELAY_SECONDS } from '../contract/webhooks';
import type { DeliveryQueue } from '../domain/webhook-ports';
import type { DeliveryJob } from '../domain/webhook-endpoints';

/** The queue message of a job: `{"webhook_job": …}` (a message from the bus carries `detail-type` instead). */
export const jobMessage = (job: DeliveryJob) => JSON.stringify({ webhook_job: job });

/**
 * The message of a job, grouped by its endpoint: on a standard queue the
 * group is SQS's fair-queue tenant, so an endpoint with a backlog (or slow
 * to answer) does not lengthen the wait of other endpoints' deliveries.
 */
export function sendMessageInput(queueUrl: string, job: DeliveryJob, delaySeconds: number): SendMessageCommandInput {
  return {
    QueueUrl: queueUrl,
    MessageBody: jobMessage(job),
    DelaySeconds: Math.max(0, Math.min(QUEUE_MAX_DELAY_SECONDS, Math.round(delaySeconds))),
    MessageGroupId: job.endpoint_id,
  };
}

export function sqsDeliveryQueue(
  settings: { queueUrl: string },
  options: { sqs?: SQSClient; later?: (job: DeliveryJob, delaySeconds: number) => Promise<void> } = {},
): DeliveryQueue {
  const sqs = options.sqs ?? new SQSClient({});
  return {
    async later(job, delaySeconds) {
      if (delaySeconds <= QUEUE_MAX_DELAY_SECONDS) {
        await sqs.send(new SendMessageCommand(sendMessageInput(settings.queueUrl, job, delaySeconds)));
        return;
      }
      if (!options.later) throw new Error(`this function cannot queue a delivery ${delaySeconds} s ahead (over the queue's ${QUEUE_MAX_DELAY_SECONDS} s)`);
      await options.later(job, delaySeconds);
    },
  };
}
