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
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  type CreateScheduleCommandInput,
  type DeleteScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import type { RevocationRequest, RevocationScheduler } from '../domain/revocation-scheduler';
import { schedulerSettingsFromEnvironment, type SchedulerSettings } from '../platform/scheduler-config';

/** Built once per process and reused across invocations. */
const schedulerClient = new SchedulerClient({});

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

/**
 * `at(yyyy-mm-ddThh:mm:ss)` in UTC. Scheduler takes whole seconds and no
 * zone, so the instant is rounded UP: the schedule never fires before the
 * transition ends (the expire service would only log `not_due` then).
 */
export function scheduleExpressionOf(at: string): string {
  const instant = Date.parse(at);
  if (Number.isNaN(instant)) throw new Error(`Not an instant: ${at}`);
  const wholeSecond = Math.ceil(instant / 1000) * 1000;
  return `at(${new Date(wholeSecond).toISOString().slice(0, 19)})`;
}

/** The event the schedule delivers to the expire function. */
export function expireEventOf(request: RevocationRequest): { key_id: string; generation: number } {
  return { key_id: request.keyId, generation: request.generation };
}

/** The exact CreateSchedule request for a transition ending at `at`. */
export function createScheduleInput(settings: SchedulerSettings, request: RevocationRequest & { at: string }): CreateScheduleCommandInput {
  const name = scheduleNameOf(request);
  const expression = scheduleExpressionOf(request.at);
  return {
    Name: name,
    GroupName: settings.groupName,
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Description: `Ends the grace period of key ${request.keyId}, generation ${request.generation}`,
    Target: {
      Arn: settings.expireFunctionArn,
      RoleArn: settings.schedulerRoleArn,
      Input: JSON.stringify(expireEventOf(request)),
      RetryPolicy: { ...EXPIRY_RETRY_POLICY },
      DeadLetterConfig: { Arn: settings.deadLetterQueueArn },
    },
    // Same request → same token (SDK retries are idempotent); another time → another token.
    ClientToken: createHash('sha256').update(`${settings.groupName}/${name}@${expression}`).digest('hex').slice(0, 64),
  };
}

/** The exact DeleteSchedule request for a transition's schedule. */
export function deleteScheduleInput(settings: SchedulerSettings, request: RevocationRequest): DeleteScheduleCommandInput {
  return { Name: scheduleNameOf(request), GroupName: settings.groupName };
}

export interface EventBridgeSchedulerOptions {
  /** Default: the module's client. */
  client?: SchedulerClient;
  /** Default: read from the environment now (a missing variable throws here). */
  settings?: SchedulerSettings;
}

/** The EventBridge Scheduler adapter of the revocation-scheduling port. */
export function createEventBridgeRevocationScheduler(options: EventBridgeSchedulerOptions = {}): RevocationScheduler {
  const client = options.client ?? schedulerClient;
  const settings = options.settings ?? schedulerSettingsFromEnvironment();

  const deleteIfPresent = async (request: RevocationRequest): Promise<void> => {
    try {
      await client.send(new DeleteScheduleCommand(deleteScheduleInput(settings, request)));
    } catch (error) {
      // Already fired (ActionAfterCompletion DELETE) or never created: nothing to cancel.
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  };

  return {
    async schedule(request) {
      const input = createScheduleInput(settings, request);
      try {
        await client.send(new CreateScheduleCommand(input));
      } catch (error) {
        if (!(error instanceof ConflictException)) throw error;
        // A schedule of the same transition is left from an attempt whose transaction failed: replace it.
        await deleteIfPresent(request);
        await client.send(new CreateScheduleCommand(input));
      }
    },
    cancel: deleteIfPresent,
  };
}
