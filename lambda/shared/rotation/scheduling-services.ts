/**
 * The services of the functions that schedule or cancel the end of a grace
 * period (regenerate, delete): the environment's services plus EventBridge
 * Scheduler when `SCHEDULE_GROUP_NAME` is set. Kept apart from
 * platform/services.ts so that only these bundles carry the Scheduler client.
 */
import { environmentServices, type Services } from '../platform/services';
import type { RevocationScheduler } from './revocation-scheduler';
import { eventBridgeSchedulingConfigured } from './scheduler-config';
import { createEventBridgeRevocationScheduler } from './scheduler-eventbridge';

/** The scheduler the environment asks for: EventBridge Scheduler when `SCHEDULE_GROUP_NAME` is set, otherwise none. */
export function schedulerFromEnvironment(): RevocationScheduler | undefined {
  return eventBridgeSchedulingConfigured() ? createEventBridgeRevocationScheduler() : undefined;
}

let withScheduler: Services | undefined;

/** `environmentServices()` with the environment's scheduler; built once per process. */
export function schedulingEnvironmentServices(): Services {
  withScheduler ??= { ...environmentServices(), scheduler: schedulerFromEnvironment() };
  return withScheduler;
}
