/**
 * What every one-shot EventBridge Scheduler schedule of the service shares
 * (the end of a grace period, an expiry notice, a webhook retry): one
 * instant in UTC, no flexible window, deleted after it ran, in the
 * rotation's schedule group; created once (a second create of the same name
 * is a conflict) and deleted only if still there.
 */
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type CreateScheduleCommandInput,
  type DeleteScheduleCommandInput,
  type SchedulerClient,
  type Target,
} from '@aws-sdk/client-scheduler';

/**
 * `at(yyyy-mm-ddThh:mm:ss)` in UTC. Scheduler takes whole seconds and no
 * zone, so the instant is rounded UP: a schedule never fires before its
 * moment (the expire service would only log `not_due` then).
 */
export function scheduleExpressionOf(at: string): string {
  const instant = Date.parse(at);
  if (Number.isNaN(instant)) throw new Error(`Not an instant: ${at}`);
  const wholeSecond = Math.ceil(instant / 1000) * 1000;
  return `at(${new Date(wholeSecond).toISOString().slice(0, 19)})`;
}

/** A one-shot schedule at `at` (ISO 8601) in `groupName`. */
export function oneShotScheduleInput(schedule: {
  readonly name: string;
  readonly groupName: string;
  readonly at: string;
  readonly description: string;
  readonly target: Target;
  readonly clientToken: string;
}): CreateScheduleCommandInput {
  return {
    Name: schedule.name,
    GroupName: schedule.groupName,
    ScheduleExpression: scheduleExpressionOf(schedule.at),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Description: schedule.description,
    Target: schedule.target,
    ClientToken: schedule.clientToken,
  };
}

/** Creates the schedule; false when one of its name exists already (a conflict), nothing changed. */
export async function createSchedule(client: Pick<SchedulerClient, 'send'>, input: CreateScheduleCommandInput): Promise<boolean> {
  try {
    await client.send(new CreateScheduleCommand(input));
    return true;
  } catch (error) {
    if (error instanceof ConflictException) return false;
    throw error;
  }
}

/** Deletes the schedule if it is there (one that fired deleted itself; one never made is not missed). */
export async function deleteScheduleIfPresent(client: Pick<SchedulerClient, 'send'>, input: DeleteScheduleCommandInput): Promise<void> {
  try {
    await client.send(new DeleteScheduleCommand(input));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
}
