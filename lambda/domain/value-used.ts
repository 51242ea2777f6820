/**
 * Which of a key's values a request presented (docs/verification.md, "Which
 * value was used"): its current value, or the old value of a regeneration's
 * grace period. The verify endpoint and the platform authorizer say it in
 * their answer; the management routes answer a request made with an old
 * value with `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers. Pure.
 */
import type { VerifiedKey } from './model';

type PresentedKey = Pick<VerifiedKey, 'slot' | 'old_value_ends_at' | 'old_value_since'>;

/** `value` and, for the old value, `old_value_ends_at`: the verify answer's and the authorizer context's fields. */
export function valueUsed(key: PresentedKey): { value: 'current' | 'old'; old_value_ends_at?: string } {
  if (key.slot !== 'previous') return { value: 'current' };
  return { value: 'old', ...(key.old_value_ends_at ? { old_value_ends_at: key.old_value_ends_at } : {}) };
}

/**
 * The headers of an answer to a request made with an old value: `Deprecation`
 * at the regeneration that replaced it (`@<epoch seconds>`; `now` for a value
 * replaced before the regeneration time was kept with it) and `Sunset` at its
 * end (an HTTP date). None for a current value.
 */
export function deprecationHeaders(key: PresentedKey, now: Date): Record<string, string> {
  if (key.slot !== 'previous' || !key.old_value_ends_at) return {};
  const since = key.old_value_since ? Date.parse(key.old_value_since) : now.getTime();
  return { Deprecation: `@${Math.floor(since / 1000)}`, Sunset: new Date(key.old_value_ends_at).toUTCString() };
}
