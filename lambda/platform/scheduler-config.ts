/**
 * Environment of the EventBridge Scheduler adapter, read through getters like
 * `config.ts`: a missing variable fails the first read, which in Lambda is the
 * first regenerate or delete of a cold function, never half-way through a
 * schedule. The stack sets all four (lambda/contract/env-names.ts, `Rotation#schedulerEnvironment`).
 */

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${name}`);
  }
  return value;
}

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

export const schedulerConfig: SchedulerSettings = {
  /** `SCHEDULE_GROUP_NAME`; its presence selects the EventBridge adapter (see `schedulerFromEnvironment` in platform/services.ts). */
  get groupName(): string {
    return required('SCHEDULE_GROUP_NAME');
  },
  /** `EXPIRE_FUNCTION_ARN`. */
  get expireFunctionArn(): string {
    return required('EXPIRE_FUNCTION_ARN');
  },
  /** `SCHEDULER_ROLE_ARN`. */
  get schedulerRoleArn(): string {
    return required('SCHEDULER_ROLE_ARN');
  },
  /** `SCHEDULER_DLQ_ARN`. */
  get deadLetterQueueArn(): string {
    return required('SCHEDULER_DLQ_ARN');
  },
};

/** Whether this process is configured to schedule through EventBridge (the group name is set). */
export function eventBridgeSchedulingConfigured(): boolean {
  const value = process.env.SCHEDULE_GROUP_NAME;
  return value !== undefined && value !== '';
}
