/**
 * Keys nobody uses (docs/operations.md, "Keys nobody uses"): when a key was
 * last used as VALID, and what a team's `disable_unused_after_days` policy
 * does to it today. Pure.
 */
import { MS_PER_DAY } from '../platform/clock';
import type { KeyItem } from './model';
import type { LastUse } from './usage-figures';

/** The `key.unused` warning comes this long before the policy disables a key. */
export const UNUSED_WARNING_DAYS = 7;

/**
 * A key's last VALID use (epoch ms): `last_valid_at` (the epoch for none); a
 * usage item written before it was kept counts from its last use; never
 * earlier than the key's creation (a key never used counts from it).
 */
export function lastValidUseOf(key: Pick<KeyItem, 'created_at'>, usage: LastUse | undefined): number {
  return Math.max(Date.parse(usage?.last_valid_at ?? usage?.last_used_at ?? key.created_at), Date.parse(key.created_at));
}

/** What the policy does to one key today: nothing, warn (`key.unused`, once per last use), or disable it. */
export type UnusedVerdict = { act: 'none' } | { act: 'warn' | 'disable'; lastValidAt: number; disableAt: number };

export function unusedVerdict(key: KeyItem, usage: LastUse | undefined, days: number, now: number): UnusedVerdict {
  if (key.state !== 'active' || !key.is_active || (key.expires_at !== null && Date.parse(key.expires_at) <= now)) return { act: 'none' };
  const lastValidAt = lastValidUseOf(key, usage);
  const disableAt = lastValidAt + days * MS_PER_DAY;
  if (now >= disableAt) return { act: 'disable', lastValidAt, disableAt };
  if (now >= disableAt - UNUSED_WARNING_DAYS * MS_PER_DAY) return { act: 'warn', lastValidAt, disableAt };
  return { act: 'none' };
}

/** The note a warning leaves on the key (its `expiry_notices`), one per last use: a later use and a new idle spell warn again. */
export const unusedNoticeTag = (lastValidAt: number): string => `unused@${new Date(lastValidAt).toISOString()}`;
