/**
 * Environment of the EventBridge Scheduler adapter (environment.ts), read
 * when the adapter is made: a missing variable fails there, which in Lambda
 * is the first regenerate or delete of a cold function, never half-way
 * through a schedule. The stack sets all four
 * (lambda/contract/function-environment.ts, `Rotation#schedulerEnvironment`).
 */
import { optionalSetting, requiredSetting } from './environment';

/** Where schedules go and what they invoke. */
export interface SchedulerSettings {
  /** Schedule group holding the one-shot expiry schedules. */
  readonly groupName: string;
  /** The expire function (`lambda/handlers/expire-old-value.ts`) a schedule invokes. */
  readonly expireFunctionArn: string;
  /** Role EventBridge Scheduler assumes to invoke the expire function. */
  readonly schedulerRoleArn: string;
  /** Dead-letter queue for events the scheduler could not deliver. */
  readonly deadLetterQueueArn: string;
}

/** The four settings, each read now (a missing one throws here, not at the first fire). */
export function schedulerSettingsFromEnvironment(): SchedulerSettings {
  return {
    groupName: requiredSetting('SCHEDULE_GROUP_NAME'),
    expireFunctionArn: requiredSetting('EXPIRE_FUNCTION_ARN'),
    schedulerRoleArn: requiredSetting('SCHEDULER_ROLE_ARN'),
    deadLetterQueueArn: requiredSetting('SCHEDULER_DLQ_ARN'),
  };
}

/** Whether this process is configured to schedule through EventBridge (the group name is set). */
export function eventBridgeSchedulingConfigured(): boolean {
  return optionalSetting('SCHEDULE_GROUP_NAME') !== undefined;
}
