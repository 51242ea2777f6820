/**
 * The revocation scheduler the handlers use, chosen once per process.
 * Until an adapter is configured (`useRevocationScheduler`), none is used and
 * old values are still refused by the clock at authentication.
 */
import type { RevocationScheduler } from './revocation-scheduler';

let scheduler: RevocationScheduler | undefined;

export function revocationScheduler(): RevocationScheduler | undefined {
  return scheduler;
}

/** Installs the scheduler adapter (EventBridge in AWS, timers locally, a fake in tests). */
export function useRevocationScheduler(next: RevocationScheduler | undefined): void {
  scheduler = next;
}
