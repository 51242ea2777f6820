/**
 * A change of an owner's limits or credits (a key's or an identity's update):
 * the new definition, the balance to start from, and what the audit record
 * shows. `limits` replaces the list (`[]`: none); `credits` sets the balance
 * to `remaining` in the current refill period (grants stay), or `null`
 * removes credits (unlimited).
 */
import { meterDefOfInput, meterDefText, parseMeterDef, refillPeriod, usesMeter, type CreditState, type MeterInput } from './meters';

export interface MeterChange {
  /** The new definition's text; null: the owner keeps no meter. */
  text: string | null;
  /** The balance set: from `remaining`, in `period` (a refill's); null: credits removed; absent: the balance stays. */
  credits?: { remaining: number; period?: string } | null;
  /** Before and after, as the audit record shows them. */
  audited: { limits?: { before: unknown[]; after: unknown[] }; credits?: { before: unknown; after: unknown } };
}

/** The change `input` makes to a meter defined by `currentText`; undefined when it changes nothing. */
export function meterChangeOf(currentText: string | undefined, input: MeterInput, at: Date): MeterChange | undefined {
  if (input.limits === undefined && input.credits === undefined) return undefined;
  const current = parseMeterDef(currentText);
  const next = meterDefOfInput({
    limits: input.limits ?? current.limits,
    credits: input.credits === undefined ? current.credits && { remaining: 0, ...current.credits } : input.credits,
  });
  const audited: MeterChange['audited'] = {};
  if (input.limits !== undefined && JSON.stringify(input.limits) !== JSON.stringify(current.limits))
    audited.limits = { before: current.limits, after: input.limits };
  // Credits given are always a change: the balance is set, even to the same figure.
  if (input.credits !== undefined) audited.credits = { before: current.credits, after: input.credits };
  if (Object.keys(audited).length === 0) return undefined;
  const refill = next.credits?.refill;
  return {
    text: usesMeter(next) ? meterDefText(next) : null,
    ...(input.credits === undefined
      ? {}
      : { credits: input.credits === null ? null : { remaining: input.credits.remaining, ...(refill ? { period: refillPeriod(refill, at) } : {}) } }),
    audited,
  };
}

/** The credits a meter holds after `change` (read before it as `before`). */
export function creditsAfter(before: CreditState | undefined, change: MeterChange | undefined): CreditState | undefined {
  if (change?.credits === undefined) return before;
  if (change.credits === null) return undefined;
  return { left: change.credits.remaining, period: change.credits.period, grants: before?.grants ?? {} };
}
