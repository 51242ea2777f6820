/**
 * `last_valid_at` on the usage item: the last use admitted as VALID (the key
 * list's unused filter, docs/operations.md). The write that admits a use
 * sets it, a lease's write sets it for the uses its block admitted; a use
 * of a key refused for the request (management authentication) never does.
 *
 * A write that takes its slot under the upper bound of the rate window may
 * still be refused by the window's estimate once the write has answered
 * (usage-store.ts): it keeps the value it replaced in `valid_before`, and
 * the write that gives the slot back puts it back (usage-windows.ts
 * `releaseSlots`; a VALID use another process recorded in the
 * milliseconds between the two writes is set back with it, and the key's
 * next VALID use sets it again).
 * Early writes keep theirs in `prior_valid_at` (early-use.ts). A key that
 * had none gets `NEVER_VALID` (the epoch) back: no VALID use.
 */
import type { UseToRecord } from '../domain/recording';
import { latest, type UsageDelta } from '../domain/usage-delta';
import { NEVER_VALID, usageClauses, type UsageUpdate } from './usage-writes';

/**
 * The clauses of a write that takes a slot for `use` (usageClauses), with
 * the latest VALID use it records: the uses `delta` holds admitted, and
 * `use` unless its key was refused. `estimated`: the estimate may still
 * refuse the use once the write answers, so the write keeps the
 * `last_valid_at` it replaces, and `validBefore` is what `releaseSlots`
 * puts back if it does (undefined: nothing to put back).
 */
export function admittingClauses(
  use: UseToRecord,
  delta: UsageDelta,
  copied: readonly string[],
  earlyToken: string | undefined,
  estimated: boolean,
): { usage: UsageUpdate; validBefore: { pending?: Date } | undefined } {
  const validAt = use.refused ? delta.lastValidAt : latest(delta.lastValidAt, use.at);
  const usage = usageClauses(delta, copied, earlyToken, validAt);
  if (!estimated || !validAt) return { usage, validBefore: undefined };
  usage.sets.push('valid_before = if_not_exists(last_valid_at, :noValid)');
  usage.values[':noValid'] = NEVER_VALID;
  return { usage, validBefore: { pending: delta.lastValidAt } };
}
