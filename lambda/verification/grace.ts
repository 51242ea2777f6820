/**
 * A use-driven grace on the authentication path (domain/grace-modes.ts;
 * docs/verification.md, "Grace modes"), the same on every surface (the
 * verify endpoint, the platform authorizer, management authentication):
 *
 * - `first_use`: the new value's first VALID use is marked on the old value's
 *   lookup (`markNewValueUsed`, once per transition and process), which then
 *   carries the decided end as its `valid_until`: the clock refuses the old
 *   value from that second, as it does at any deadline.
 * - `until_idle`: the old value's lookup carries the new value's first use;
 *   past `grace_minutes` after it, an old value is VALID only while its own
 *   last use (the usage item's `g2_old_last`, which every recording write
 *   keeps) is less than `grace_minutes` old. This process remembers the
 *   latest use it knows, so it reads the usage item only when its memory
 *   says the old value went idle, and remembers an end it found.
 *
 * Bound: a use another process admitted from a hot key's lease reaches the
 * usage item within the lease's flush interval, so the idle end is judged
 * that much late where leases are on (never early). No write per
 * verification: the old value's last use rides the recording write.
 */
import { useDrivenGraceOf, type CheckedGrace } from '../domain/grace-modes';
import { MS_PER_MINUTE } from '../platform/clock';
import type { ValueLookupItem } from '../domain/model';
import type { CheckedKey, MeteringServices } from './metered';
import type { ValueLookupStore } from '../store/value-lookup-store';
import type { ProcessMemory } from '../store/process-memory';

/** `memory.oldValueUses` of a transition whose old value a read found idle past its end. */
export const ENDED = -1;

/** What the grace checks use. */
export interface GraceServices extends MeteringServices {
  readonly lookups: Pick<ValueLookupStore, 'markNewValueUsed' | 'oldValueLastUse'>;
  readonly memory: Pick<ProcessMemory, 'oldValueUses' | 'newValueMarked' | 'oldValueSources'>;
}

/** The grace a lookup of a use-driven transition carries, for its checked key. */
export function checkedGraceOf(lookup: ValueLookupItem): CheckedGrace | undefined {
  const grace = useDrivenGraceOf(lookup);
  if (!grace || !lookup.transition_ends_at) return undefined;
  const first = lookup.new_value_first_used_at;
  return { ...grace, hardEnd: Date.parse(lookup.transition_ends_at), newFirstUsedAt: first ? Date.parse(first) : undefined, oldHash: lookup.old_value_hash };
}

const memoryKey = (checked: CheckedKey): string => `${checked.key.id}#${checked.transition?.generation}`;

/** Whether an old value under `until_idle` needs its idle check: its new value was used more than `grace_minutes` ago. */
export function needsIdleCheck({ grace, transition }: CheckedKey, now: number): boolean {
  return (
    transition?.role === 'old' &&
    grace?.grace_mode === 'until_idle' &&
    grace.newFirstUsedAt !== undefined &&
    now >= grace.newFirstUsedAt + grace.grace_minutes * MS_PER_MINUTE
  );
}

/**
 * The end of an old value under `until_idle` as far as can be known at `now`
 * (epoch ms): undefined when it has passed. `pendingBoundMs`: how late
 * another process may write a use it admitted (its lease's flush interval).
 */
export async function idleEnd(deps: GraceServices, checked: CheckedKey, now: number, pendingBoundMs: number): Promise<number | undefined> {
  const grace = checked.grace as CheckedGrace;
  const id = memoryKey(checked);
  const endAfter = (last: number) => Math.min(grace.hardEnd, Math.max(grace.newFirstUsedAt ?? 0, last) + grace.grace_minutes * MS_PER_MINUTE);
  const passed = (last: number) => endAfter(last) + pendingBoundMs <= now;
  let known = deps.memory.oldValueUses.get(id) ?? 0;
  if (known !== ENDED && passed(known)) {
    known = Math.max(known, await deps.lookups.oldValueLastUse(checked.key.id, checked.transition?.generation ?? 0));
    deps.memory.oldValueUses.set(id, passed(known) ? ENDED : known);
  }
  return known === ENDED || passed(known) ? undefined : endAfter(known);
}

/**
 * After a VALID use of a key in a use-driven transition: an old value's use
 * is remembered (its idle end moves); a new value's first use in this
 * process is marked on the old value's lookup. A failed mark is not the
 * request's failure: the old value then lives longer, never shorter, and the
 * next use marks it.
 */
export async function noteGraceUse(deps: GraceServices, checked: CheckedKey, at: Date): Promise<void> {
  const { grace, transition } = checked;
  if (!grace || !transition) return;
  const id = memoryKey(checked);
  const known = deps.memory.oldValueUses.get(id) ?? 0;
  if (transition.role === 'old') {
    if (known !== ENDED && at.getTime() > known) deps.memory.oldValueUses.set(id, at.getTime());
  } else if (grace.oldHash && !deps.memory.newValueMarked.get(id)) {
    const use = { keyId: checked.key.id, generation: transition.generation, oldHash: grace.oldHash, grace, hardEnd: grace.hardEnd, at: at.getTime() };
    if (
      await deps.lookups.markNewValueUsed(use).then(
        () => true,
        () => false,
      )
    )
      deps.memory.newValueMarked.set(id, true);
  }
}

/** Networks one process tracks per old value (the key read shows the 5 with the most uses); a use from another is counted without it. */
export const TRACKED_SOURCES = 20;

/**
 * A judgement whose old value came from a network this process may still
 * track for it: at most `TRACKED_SOURCES` per transition, so that an old
 * value sent from everywhere cannot grow the usage item without bound.
 */
export function trackedSource<J extends { valid: boolean; checked?: CheckedKey }>(deps: Pick<GraceServices, 'memory'>, judged: J): J {
  const checked = judged.valid ? judged.checked : undefined;
  if (!checked?.source) return judged;
  const id = memoryKey(checked);
  const known = deps.memory.oldValueSources.get(id) ?? new Set<string>();
  if (!known.has(checked.source) && known.size >= TRACKED_SOURCES) return { ...judged, checked: { ...checked, source: undefined } };
  known.add(checked.source);
  deps.memory.oldValueSources.set(id, known);
  return judged;
}
