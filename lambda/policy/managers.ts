/**
 * The last-manager guard: a change that leaves the team without an active
 * `sk` key holding `keys.manage` able to reach the key's environment would
 * lock the team out, so it is refused (409). Otherwise the change names a
 * surviving manager, which its transaction checks is still one when it
 * commits, so two concurrent changes cannot both remove the last two.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { canReach } from './authorization';
import type { VerifiedKey } from '../verification/verify';
import type { KeyStore } from '../store/key-store';
import type { Survivor } from '../store/transactions';
import { isManager } from '../domain/key-records';
import type { KeyItem } from '../domain/model';

/** Whether the key currently keeps its team manageable. */
export function isActingManager(key: KeyItem): boolean {
  return key.is_manager && key.is_active;
}

export function lastManagerConflict(action: string): ApiError {
  return new ApiError(
    ErrorCode.CONFLICT,
    `This is the team’s last active secret key holding keys.manage; ${action} it would lock the team out. Create another manager key first.`,
    [{ field: 'key_id', issue: 'last manager key of the team' }],
  );
}

/**
 * Another live manager key that can manage keys of `key`'s environment (a
 * `test` manager never keeps a team's live keys manageable); the caller's
 * own key when it is one. Throws the 409 when there is none.
 *
 * The caller is taken without a read when it qualifies: it has just
 * authenticated (live, active, unexpired), and the transaction checks that it
 * is still a manager when it commits. Only a manager removing itself makes
 * the team's index be read, page by page until another manager is found.
 */
export async function survivingManager(services: { readonly keys: KeyStore }, key: KeyItem, caller: VerifiedKey, now: Date, action: string): Promise<Survivor> {
  if (caller.id !== key.id && isManager(caller.type, caller.scopes) && canReach(caller.environment, key.environment)) {
    return { id: caller.id, environment: caller.environment };
  }
  const survivor = await services.keys.otherLiveManager(key.team_id, key.id, now, (other) => canReach(other.environment, key.environment));
  if (!survivor) throw lastManagerConflict(action);
  return survivor;
}
