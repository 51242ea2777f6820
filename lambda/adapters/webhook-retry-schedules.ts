/**
 * Webhook retries past the queue's 15 minutes: an EventBridge Scheduler
 * one-shot schedule in the rotation's group that sends the job's message to
 * the delivery queue at its time, deleted after it ran. Used by the
 * deliverer only.
 */
import { createHash } from 'node:crypto';
import { SchedulerClient, type CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import type { DeliveryJob } from '../domain/webhook-endpoints';
import { createSchedule, oneShotScheduleInput } from './one-shot-schedules';
import { jobMessage } from './webhook-queue-sqs';

export interface RetryScheduleSettings {
  queueArn: string;
  groupName: string;
  schedulerRoleArn: string;
}

export function retryScheduleInput(settings: RetryScheduleSettings, job: DeliveryJob, at: Date): CreateScheduleCommandInput {
  const digest = createHash('sha256').update(`${job.event_id}/${job.endpoint_id}/${job.attempt}`).digest('hex');
  return oneShotScheduleInput({
    name: `webhook-${digest.slice(0, 40)}`,
    groupName: settings.groupName,
    at: at.toISOString(),
    description: `Webhook retry: attempt ${job.attempt} of ${job.event_id}`,
    target: {
      Arn: settings.queueArn,
      RoleArn: settings.schedulerRoleArn,
      Input: jobMessage(job),
      RetryPolicy: { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 86_400 },
    },
    clientToken: digest.slice(0, 64),
  });
}

/** A `later` for the SQS queue: a one-shot schedule `delaySeconds` ahead. */
export function scheduledRetries(settings: RetryScheduleSettings, client = new SchedulerClient({}), now = () => new Date()) {
  // The same attempt scheduled already (a replayed message): one is enough.
  return async (job: DeliveryJob, delaySeconds: number): Promise<void> => {
    await createSchedule(client, retryScheduleInput(settings, job, new Date(now().getTime() + delaySeconds * 1000)));
  };
}
