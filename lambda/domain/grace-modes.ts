/**
 * When a regenerated key's old value ends (docs/verification.md, "Grace
 * modes"): at a fixed deadline (`fixed`, the default), `grace_minutes` after
 * the new value's first VALID use (`first_use`), or once the new value has
 * been used, after `grace_minutes` without a use of the old value
 * (`until_idle`, counted from the later of the new value's first use and the
 * old value's last use). `grace_period_days` stays the hard maximum in every
 * mode. Pure.
 */
import { MS_PER_MINUTE } from '../platform/clock';
import type { KeyItem } from './model';
import { oldValueLastEntry } from './usage-figures';

export const GRACE_MODES = ['fixed', 'first_use', 'until_idle'] as const;
export type GraceMode = (typeof GRACE_MODES)[number];

/** `grace_minutes` when a use-driven mode is asked without it. */
export const DEFAULT_GRACE_MINUTES = 60;
/** Bounds of `grace_minutes`: one minute to one week. */
export const MIN_GRACE_MINUTES = 1;
export const MAX_GRACE_MINUTES = 10_080;

/** Why an old value ended, as `key.old_value_expired` says it. */
export type OldValueEndReason = 'first_use' | 'idle' | 'deadline';

/** A transition's use-driven grace: its mode and minutes (absent for `fixed`). */
export interface UseDrivenGrace {
  grace_mode: Exclude<GraceMode, 'fixed'>;
  grace_minutes: number;
}

/** What a checked key of a use-driven transition carries from its lookup (verification/grace.ts). */
export interface CheckedGrace extends UseDrivenGrace {
  /** The hard maximum (epoch ms). */
  hardEnd: number;
  /** Old value: the new value's first use (epoch ms), once marked. */
  newFirstUsedAt?: number;
  /** New value: the old value's hash, whose lookup its first use marks. */
  oldHash?: string;
}

/** What decides an old value's end. Instants in epoch ms. */
export interface GraceFacts {
  /** The hard maximum (`grace_period_days` after the regeneration). */
  hardEnd: number;
  /** The use-driven grace, absent for `fixed`. */
  grace?: UseDrivenGrace;
  /** The new value's first VALID use, once there has been one. */
  newFirstUsedAt?: number;
  /** The old value's last use since the regeneration, if any. */
  oldLastUsedAt?: number;
}

/** The old value's end as use has decided it so far, and why it ends then. */
export interface GraceEnd {
  /** Epoch ms: the hard maximum until use decides an earlier one. */
  at: number;
  reason: OldValueEndReason;
  /** Whether use decided it (the new value was used); false: the hard maximum stands for now. */
  decided: boolean;
}

/**
 * The old value's end from what is known of use. Under `until_idle` it is a
 * projection: a later use of the old value moves it (never past the hard
 * maximum).
 */
export function graceEnd(facts: GraceFacts): GraceEnd {
  const { hardEnd, grace, newFirstUsedAt } = facts;
  if (!grace || newFirstUsedAt === undefined) return { at: hardEnd, reason: 'deadline', decided: false };
  const graceMs = grace.grace_minutes * MS_PER_MINUTE;
  const from = grace.grace_mode === 'first_use' ? newFirstUsedAt : Math.max(newFirstUsedAt, facts.oldLastUsedAt ?? 0);
  const end = from + graceMs;
  // Equal: a `first_use` end already written as the transition's end (grace-marks.ts).
  if (end > hardEnd) return { at: hardEnd, reason: 'deadline', decided: true };
  return { at: end, reason: grace.grace_mode === 'first_use' ? 'first_use' : 'idle', decided: true };
}

/**
 * When the clean-up should look again at a transition whose end has not come
 * (epoch ms): at the projected end once use decided one, else `grace_minutes`
 * on (the earliest the new value's first use could end it from now), at
 * least a minute on and never after the hard maximum.
 */
export function nextGraceCheck(facts: GraceFacts, now: number): number {
  const end = graceEnd(facts);
  const wanted = end.decided || !facts.grace ? end.at : now + facts.grace.grace_minutes * MS_PER_MINUTE;
  return Math.min(facts.hardEnd, Math.max(wanted, now + MS_PER_MINUTE));
}

/** The first check of a use-driven transition, set at its regeneration: the earliest its end could be. */
export function firstGraceCheck(regeneratedAt: number, hardEnd: number, grace: UseDrivenGrace): number {
  return Math.min(hardEnd, regeneratedAt + grace.grace_minutes * MS_PER_MINUTE);
}

/**
 * What decides the end of `key`'s transition under a use-driven grace: its
 * hard maximum, the new value's first use (on the key item) and the old
 * value's last use (`entries`: the usage item's transition entries); none
 * for a `fixed` grace.
 */
export function keyGraceFacts(key: KeyItem, entries: Readonly<Record<string, number>> | undefined): GraceFacts | undefined {
  const grace = useDrivenGraceOf(key);
  if (!grace || !key.transition_ends_at) return undefined;
  const oldLastUsedAt = entries?.[oldValueLastEntry(key.generation)];
  return {
    hardEnd: Date.parse(key.transition_ends_at),
    grace,
    ...(key.new_value_first_used_at ? { newFirstUsedAt: Date.parse(key.new_value_first_used_at) } : {}),
    ...(oldLastUsedAt ? { oldLastUsedAt } : {}),
  };
}

/** The use-driven grace a stored item carries (key item or value lookup), if any. */
export function useDrivenGraceOf(item: { grace_mode?: string; grace_minutes?: number }): UseDrivenGrace | undefined {
  if ((item.grace_mode !== 'first_use' && item.grace_mode !== 'until_idle') || item.grace_minutes === undefined) return undefined;
  return { grace_mode: item.grace_mode, grace_minutes: item.grace_minutes };
}
