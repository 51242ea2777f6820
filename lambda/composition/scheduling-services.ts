/**
 * The services of the functions that schedule or cancel the end of a grace
 * period (regenerate, delete): the environment's services plus EventBridge
 * Scheduler when `SCHEDULE_GROUP_NAME` is set. Kept apart from
 * platform/services.ts so that only these bundles carry the Scheduler client.
 */
import { environmentServices, type Services } from './services';
import type { RevocationScheduler } from '../domain/revocation-scheduler';
import type { ExpiryScheduler } from '../domain/expiry-notices';
import { eventBridgeSchedulingConfigured } from '../platform/scheduler-config';

/**
 * EventBridge Scheduler, loaded on first use: the Scheduler client is
 * required when a request first schedules or cancels, not when the function
 * starts, so a cold start that never schedules (a delete outside a
 * transition, a regenerate with `revoke_immediately`) does not pay for it.
 */
function lazyEventBridgeScheduler(): RevocationScheduler {
  const scheduler = loadedOnFirstUse(() => import('../adapters/scheduler-eventbridge').then((module) => module.createEventBridgeRevocationScheduler()));
  return {
    schedule: async (request) => (await scheduler()).schedule(request),
    cancel: async (request) => (await scheduler()).cancel(request),
  };
}

/** `load` run on the first call, its promise kept; a failed load is tried again on the next call. */
function loadedOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
}

/** The scheduler the environment asks for: EventBridge Scheduler when `SCHEDULE_GROUP_NAME` is set, otherwise none. */
export function schedulerFromEnvironment(): RevocationScheduler | undefined {
  return eventBridgeSchedulingConfigured() ? lazyEventBridgeScheduler() : undefined;
}

let withScheduler: Services | undefined;

/** Expiry notices through EventBridge Scheduler, loaded on first use (as the revocation scheduler is). */
function lazyEventBridgeExpiry(): ExpiryScheduler {
  const expiry = loadedOnFirstUse(() => import('../adapters/expiry-scheduler-eventbridge').then((module) => module.createEventBridgeExpiryScheduler()));
  return {
    arm: async (requests) => (await expiry()).arm(requests),
    disarm: async (keyId, expiresAt) => (await expiry()).disarm(keyId, expiresAt),
  };
}

/** `environmentServices()` with the environment's schedulers (grace ends, expiry notices); built once per process. */
export function schedulingEnvironmentServices(): Services {
  withScheduler ??= {
    ...environmentServices(),
    scheduler: schedulerFromEnvironment(),
    expiry: eventBridgeSchedulingConfigured() ? lazyEventBridgeExpiry() : undefined,
  };
  return withScheduler;
}
