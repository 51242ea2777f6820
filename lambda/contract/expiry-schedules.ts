/**
 * An expiry notice's schedule, as the scheduling functions create it and the
 * notify function receives it (lambda/domain/expiry-notices.ts).
 */
import { EXPIRY_WARNINGS, type ExpiryNotice } from './webhooks';

/** What a schedule carries: which key, for which expiry, which notice. */
export interface ExpiryRequest {
  key_id: string;
  /** The expiry the notice is about (a notice for an expiry since changed does nothing). */
  expires_at: string;
  notice: ExpiryNotice;
}

/** When a notice is due (epoch ms). */
export function noticeTime(expiresAt: string, notice: ExpiryNotice): number {
  return Date.parse(expiresAt) - (notice === 'expired' ? 0 : EXPIRY_WARNINGS[notice]);
}

/** A notice's schedule name (unique per key, expiry and notice; at most 64 characters, as EventBridge Scheduler allows). */
export function expiryScheduleName(request: ExpiryRequest): string {
  return `keyexp-${request.key_id}-${request.notice}-${Math.floor(Date.parse(request.expires_at) / 1000)}`;
}
