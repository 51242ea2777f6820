/**
 * The delivery queue in AWS: a retry due within 15 minutes is an SQS
 * message with that delay; a later one is an EventBridge Scheduler one-shot
 * schedule that sends the same message to the queue at its time (deleted
 * after it ran). The delivery function reads the queue.
 */
import { createHash } from 'node:crypto';
import { SendMessageCommand, SQSClient, type SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { ConflictException, CreateScheduleCommand, SchedulerClient, type CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { QUEUE_MAX_DELAY_SECONDS } from '../contract/webhooks';
import type { DeliveryQueue } from '../domain/webhook-ports';
import type { DeliveryJob } from '../domain/webhook-endpoints';
import { scheduleExpressionOf } from './scheduler-eventbridge';

export interface QueueSettings {
  queueUrl: string;
  queueArn: string;
  groupName: string;
  schedulerRoleArn: string;
}

/** The queue message of a job: `{"webhook_job": …}` (a message from the bus carries `detail-type` instead). */
export const jobMessage = (job: DeliveryJob) => JSON.stringify({ webhook_job: job });

export function sendMessageInput(settings: QueueSettings, job: DeliveryJob, delaySeconds: number): SendMessageCommandInput {
  return { QueueUrl: settings.queueUrl, MessageBody: jobMessage(job), DelaySeconds: Math.max(0, Math.min(QUEUE_MAX_DELAY_SECONDS, Math.round(delaySeconds))) };
}

export function retryScheduleInput(settings: QueueSettings, job: DeliveryJob, at: Date): CreateScheduleCommandInput {
  const digest = createHash('sha256').update(`${job.event_id}/${job.endpoint_id}/${job.attempt}`).digest('hex');
  return {
    Name: `webhook-${digest.slice(0, 40)}`,
    GroupName: settings.groupName,
    ScheduleExpression: scheduleExpressionOf(at.toISOString()),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Description: `Webhook retry: attempt ${job.attempt} of ${job.event_id}`,
    Target: {
      Arn: settings.queueArn,
      RoleArn: settings.schedulerRoleArn,
      Input: jobMessage(job),
      RetryPolicy: { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 86_400 },
    },
    ClientToken: digest.slice(0, 64),
  };
}

export function sqsDeliveryQueue(
  settings: QueueSettings,
  clients = { sqs: new SQSClient({}), scheduler: new SchedulerClient({}) },
  now = () => new Date(),
): DeliveryQueue {
  return {
    async later(job, delaySeconds) {
      if (delaySeconds <= QUEUE_MAX_DELAY_SECONDS) {
        await clients.sqs.send(new SendMessageCommand(sendMessageInput(settings, job, delaySeconds)));
        return;
      }
      try {
        await clients.scheduler.send(new CreateScheduleCommand(retryScheduleInput(settings, job, new Date(now().getTime() + delaySeconds * 1000))));
      } catch (error) {
        // The same attempt scheduled already (a replayed message): one is enough.
        if (!(error instanceof ConflictException)) throw error;
      }
    },
  };
}
