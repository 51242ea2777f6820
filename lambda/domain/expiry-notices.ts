/**
 * Expiry notices: `key.expiring` 7 days and 1 day before a key's
 * `expires_at`, and `key.expired` at it, each written once as an audit
 * record (and so delivered as a lifecycle event). One-shot schedules fire
 * them, set when `expires_at` is set or changed; a notice whose moment has
 * already passed when `expires_at` is set is not scheduled.
 */
import { expiryScheduleName, noticeTime, type ExpiryRequest } from '../contract/expiry-schedules';

export { expiryScheduleName, noticeTime, type ExpiryRequest };

/** The notices of an expiry still ahead of `now`. */
export function noticesAhead(keyId: string, expiresAt: string, now: Date): ExpiryRequest[] {
  return (['7d', '1d', 'expired'] as const)
    .filter((notice) => noticeTime(expiresAt, notice) > now.getTime())
    .map((notice) => ({ key_id: keyId, expires_at: expiresAt, notice }));
}

/** What the key item keeps of a written notice, so a second fire writes nothing. */
export const noticeTag = (request: Pick<ExpiryRequest, 'notice' | 'expires_at'>) => `${request.notice}@${request.expires_at}`;

/** The expiry-notice scheduling port: EventBridge Scheduler in AWS, the local job queue on one machine. */
export interface ExpiryScheduler {
  /** Schedules each notice at its time. */
  arm(requests: readonly ExpiryRequest[]): Promise<void>;
  /** Best effort: drops the notices of one expiry of a key (a fire that still comes finds the expiry changed and does nothing). */
  disarm(keyId: string, expiresAt: string): Promise<void>;
}
