/**
 * The revocation-scheduling port on EventBridge Scheduler: one one-shot
 * `at()` schedule per transition, named after the key and the generation, in
 * the service's schedule group. It invokes the expire function with
 * `{key_id, generation}` and deletes itself after it ran.
 *
 * Idempotency: the name is deterministic, and `ClientToken` is derived from
 * the name and the time, so the SDK's own retries of one request are
 * idempotent. A schedule left behind by a regenerate whose transaction then
 * failed has the same name but (almost surely) another time: it is replaced
 * (delete + create; the function may only create and delete schedules).
 */
import { createHash } from 'node:crypto';
import { SchedulerClient, type CreateScheduleCommandInput, type DeleteScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { createSchedule, deleteScheduleIfPresent, oneShotScheduleInput, scheduleExpressionOf } from './one-shot-schedules';
import type { RevocationRequest, RevocationScheduler } from '../domain/revocation-scheduler';
import { schedulerSettingsFromEnvironment, type SchedulerSettings } from '../platform/scheduler-config';

let processClient: SchedulerClient | undefined;

/**
 * The process's one Scheduler client, built on first use and reused across
 * invocations (a module-level `new` would run in every bundle that imports
 * this file, and keep esbuild from dropping the client where it is unused).
 */
export function processSchedulerClient(): SchedulerClient {
  return (processClient ??= new SchedulerClient({}));
}

/**
 * Delivery retries of the scheduler (throttling, an unavailable function).
 * The function's own failures are retried by Lambda's asynchronous invocation
 * and then land in the same dead-letter queue (lib/rotation.ts).
 */
export const EXPIRY_RETRY_POLICY = { MaximumRetryAttempts: 20, MaximumEventAgeInSeconds: 24 * 60 * 60 } as const;

/** `expire-<keyId>-g<generation>`: at most 64 characters of `[0-9a-zA-Z-_.]`, as Scheduler requires. */
export function scheduleNameOf(request: RevocationRequest): string {
  const name = `expire-${request.keyId}-g${request.generation}`;
  if (!/^[0-9a-zA-Z\-_.]{1,64}$/.test(name)) throw new Error(`Cannot name a schedule for key id ${request.keyId}`);
  return name;
}

export { scheduleExpressionOf };

/** The event the schedule delivers to the expire function. */
export function expireEventOf(request: RevocationRequest): { key_id: string; generation: number } {
  return { key_id: request.keyId, generation: request.generation };
}

/** The exact CreateSchedule request for a transition ending at `at`. */
export function createScheduleInput(settings: SchedulerSettings, request: RevocationRequest & { at: string }): CreateScheduleCommandInput {
  const name = scheduleNameOf(request);
  return oneShotScheduleInput({
    name,
    groupName: settings.groupName,
    at: request.at,
    description: `Ends the grace period of key ${request.keyId}, generation ${request.generation}`,
    target: {
      Arn: settings.expireFunctionArn,
      RoleArn: settings.schedulerRoleArn,
      Input: JSON.stringify(expireEventOf(request)),
      RetryPolicy: { ...EXPIRY_RETRY_POLICY },
      DeadLetterConfig: { Arn: settings.deadLetterQueueArn },
    },
    // Same request → same token (SDK retries are idempotent); another time → another token.
    clientToken: createHash('sha256')
      .update(`${settings.groupName}/${name}@${scheduleExpressionOf(request.at)}`)
      .digest('hex')
      .slice(0, 64),
  });
}

/** The exact DeleteSchedule request for a transition's schedule. */
export function deleteScheduleInput(settings: SchedulerSettings, request: RevocationRequest): DeleteScheduleCommandInput {
  return { Name: scheduleNameOf(request), GroupName: settings.groupName };
}

export interface EventBridgeSchedulerOptions {
  /** Default: the process's client (processSchedulerClient). */
  client?: SchedulerClient;
  /** Default: read from the environment now (a missing variable throws here). */
  settings?: SchedulerSettings;
}

/** The EventBridge Scheduler adapter of the revocation-scheduling port. */
export function createEventBridgeRevocationScheduler(options: EventBridgeSchedulerOptions = {}): RevocationScheduler {
  const client = options.client ?? processSchedulerClient();
  const settings = options.settings ?? schedulerSettingsFromEnvironment();

  // Already fired (ActionAfterCompletion DELETE) or never created: nothing to cancel.
  const deleteIfPresent = (request: RevocationRequest): Promise<void> => deleteScheduleIfPresent(client, deleteScheduleInput(settings, request));

  return {
    async schedule(request) {
      const input = createScheduleInput(settings, request);
      if (await createSchedule(client, input)) return;
      // A schedule of the same transition is left from an attempt whose transaction failed: replace it.
      await deleteIfPresent(request);
      if (!(await createSchedule(client, input))) throw new Error(`The schedule ${input.Name} was made again while it was being replaced`);
    },
    cancel: deleteIfPresent,
  };
}
