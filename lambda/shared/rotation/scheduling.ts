/**
 * The revocation scheduler the handlers use, chosen once per process:
 *
 * 1. the adapter installed with `useRevocationScheduler` (the local runtime's
 *    timers, a fake or a mocked adapter in tests), else
 * 2. EventBridge Scheduler when `SCHEDULE_GROUP_NAME` is set (AWS; built on
 *    first use, and the other three scheduler variables must be set too), else
 * 3. none: no schedule is made, and old values are still refused by the clock
 *    at authentication (their lookups go by TTL).
 */
import type { RevocationScheduler } from './revocation-scheduler';
import { eventBridgeSchedulingConfigured } from './scheduler-config';
import { createEventBridgeRevocationScheduler } from './scheduler-eventbridge';

let installed: RevocationScheduler | undefined;
let eventBridge: RevocationScheduler | undefined;

export function revocationScheduler(): RevocationScheduler | undefined {
  if (installed) return installed;
  if (!eventBridgeSchedulingConfigured()) return undefined;
  eventBridge ??= createEventBridgeRevocationScheduler();
  return eventBridge;
}

/**
 * Installs the scheduler adapter (timers locally, a fake in tests);
 * `undefined` goes back to the environment's choice.
 */
export function useRevocationScheduler(next: RevocationScheduler | undefined): void {
  installed = next;
}
