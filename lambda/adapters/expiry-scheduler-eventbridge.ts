/**
 * Expiry notices through EventBridge Scheduler: one one-shot schedule per
 * notice in the rotation's schedule group, invoking the notify function
 * (`KEY_EXPIRY_FUNCTION_ARN`) with `{key_id, expires_at, notice}`, deleted
 * after it ran. Names carry the expiry, so arming a new expiry never touches
 * the schedules of the old one until the change has committed.
 */
import { createHash } from 'node:crypto';
import type { CreateScheduleCommandInput, SchedulerClient } from '@aws-sdk/client-scheduler';
import { expiryScheduleName, noticeTime, type ExpiryRequest } from '../contract/expiry-schedules';
import type { ExpiryScheduler } from '../domain/expiry-notices';
import { EXPIRY_RETRY_POLICY, processSchedulerClient } from './scheduler-eventbridge';
import { createSchedule, deleteScheduleIfPresent, oneShotScheduleInput } from './one-shot-schedules';
import { requiredSetting } from '../platform/environment';
import { schedulerSettingsFromEnvironment, type SchedulerSettings } from '../platform/scheduler-config';

/** The revocation scheduler's settings (the group, the role, the dead-letter queue), and the notify function. */
export type ExpirySchedulerSettings = Omit<SchedulerSettings, 'expireFunctionArn'> & { readonly functionArn: string };

export function expiryScheduleInput(settings: ExpirySchedulerSettings, request: ExpiryRequest): CreateScheduleCommandInput {
  const name = expiryScheduleName(request);
  return oneShotScheduleInput({
    name,
    groupName: settings.groupName,
    at: new Date(noticeTime(request.expires_at, request.notice)).toISOString(),
    description: `Expiry notice ${request.notice} of key ${request.key_id}`,
    target: {
      Arn: settings.functionArn,
      RoleArn: settings.schedulerRoleArn,
      Input: JSON.stringify(request),
      RetryPolicy: { ...EXPIRY_RETRY_POLICY },
      DeadLetterConfig: { Arn: settings.deadLetterQueueArn },
    },
    clientToken: createHash('sha256').update(`${settings.groupName}/${name}`).digest('hex').slice(0, 64),
  });
}

export function createEventBridgeExpiryScheduler(
  client: SchedulerClient = processSchedulerClient(),
  settings: ExpirySchedulerSettings = { ...schedulerSettingsFromEnvironment(), functionArn: requiredSetting('KEY_EXPIRY_FUNCTION_ARN') },
): ExpiryScheduler {
  return {
    async arm(requests) {
      // A notice scheduled already (a retried request) is left as it is.
      for (const request of requests) await createSchedule(client, expiryScheduleInput(settings, request));
    },
    async disarm(keyId, expiresAt) {
      // Already fired (deleted after completion), or never armed (its moment had passed).
      for (const notice of ['7d', '1d', 'expired'] as const) {
        await deleteScheduleIfPresent(client, { GroupName: settings.groupName, Name: expiryScheduleName({ key_id: keyId, expires_at: expiresAt, notice }) });
      }
    },
  };
}
