/**
 * Setting and dropping a key's expiry notices around a change. Armed before
 * the change commits: if scheduling fails nothing has changed (503); a
 * notice armed for a change that then fails finds another expiry and does
 * nothing. Dropped after it commits, best effort: a notice that still fires
 * finds the expiry changed.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { noticesAhead } from '../domain/expiry-notices';
import { errorField } from '../platform/observability';
import type { ExpiryPort, ObservePort } from '../store/ports';

/** What arming and dropping expiry notices takes. */
export type ExpiryServices = ExpiryPort & ObservePort;

export async function armExpiry(services: ExpiryServices, keyId: string, expiresAt: string | null, now: Date): Promise<void> {
  if (!services.expiry || expiresAt === null) return;
  try {
    await services.expiry.arm(noticesAhead(keyId, expiresAt, now));
  } catch (error) {
    services.observe.logger.error('could not schedule expiry notices', { key_id: keyId, ...errorField(error) });
    throw new ApiError(ErrorCode.SERVICE_UNAVAILABLE, 'Could not schedule the expiry notices; nothing was changed. Retry shortly.', [], { 'Retry-After': '1' });
  }
}

export async function disarmExpiry(services: ExpiryServices, keyId: string, expiresAt: string | null | undefined): Promise<void> {
  if (!services.expiry || !expiresAt) return;
  await services.expiry.disarm(keyId, expiresAt).catch((error: unknown) => {
    services.observe.logger.warn('could not cancel expiry notices', { key_id: keyId, ...errorField(error) });
  });
}
