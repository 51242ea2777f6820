/**
 * Named limits and credits (docs/limits.md): what a key or an identity may
 * spend, kept on one item per owner, its meter (a key's usage item, an
 * identity's own item). Pure: the rules, the window maths and the judgement
 * of a meter as read; store/metered-use.ts sends the writes.
 *
 * A meter holds its definition (`meter_def`, the limits and the credits
 * setting as canonical JSON), one counter per limit and window
 * (`lw:<name>:<window seconds>:<window index>`), and the credits: `cr_left`
 * (what is left of the last refill, or of the balance set), `cr_period` (the
 * refill period it belongs to) and `cr_g` (grants of credits added by hand, by id:
 * `{n, exp}`). Every admission asserts the definition it was decided under,
 * so a limit edited meanwhile is never applied from a stale copy.
 */
import { uncoveredScopes } from '../contract/scopes';
import { admittedAgainAt, windowCapacity } from './rate-window';

export interface NamedLimit {
  name: string;
  limit: number;
  window_seconds: number;
  /** Counts only verifications that ask a scope this one covers. */
  scope?: string;
}

export interface CreditRefill {
  interval: 'daily' | 'monthly';
  amount: number;
  /** Monthly only: the day the refill is due (clamped to the month's end); default 1. */
  day_of_month?: number;
}

/** Credits as set on a key or an identity (their balance lives on the meter). */
export interface CreditsSetting {
  refill: CreditRefill | null;
}

export interface MeterDef {
  limits: NamedLimit[];
  credits: CreditsSetting | null;
}

export type MeterOwner = 'key' | 'identity';

export const MAX_LIMITS = 10;
export const LIMIT_NAME = /^[a-z0-9_-]{1,32}$/;
export const MAX_COST = 1000;

export const NO_METER: MeterDef = { limits: [], credits: null };

export const usesMeter = (def: MeterDef): boolean => def.limits.length > 0 || def.credits !== null;

/** The definition of an owner's limits and credits setting (absent fields: none). */
export function meterDefOf(owner: { limits?: NamedLimit[]; credits?: CreditsSetting | null }): MeterDef {
  return { limits: owner.limits ?? [], credits: owner.credits ?? null };
}

/** The canonical text of a definition: the same limits and setting always give the same text. */
export function meterDefText(def: MeterDef): string {
  const limits = def.limits.map((l) => ({
    name: l.name,
    limit: l.limit,
    window_seconds: l.window_seconds,
    ...(l.scope === undefined ? {} : { scope: l.scope }),
  }));
  const refill = def.credits?.refill;
  const credits =
    def.credits === null
      ? null
      : {
          refill: refill
            ? { interval: refill.interval, amount: refill.amount, ...(refill.day_of_month === undefined ? {} : { day_of_month: refill.day_of_month }) }
            : null,
        };
  return JSON.stringify({ limits, credits });
}

export function parseMeterDef(text: unknown): MeterDef {
  return typeof text === 'string' ? meterDefOf(JSON.parse(text) as MeterDef) : NO_METER;
}

/** Whether a limit counts a verification that asks `scopes`. */
export function limitApplies(limit: NamedLimit, scopes: readonly string[]): boolean {
  return limit.scope === undefined || scopes.some((scope) => uncoveredScopes([limit.scope as string], [scope]).length === 0);
}

/** One window of a limit at an instant: its index (from the epoch), the fraction gone, its end (epoch seconds). */
export interface LimitWindow {
  index: number;
  elapsed: number;
  reset: number;
}

export function limitWindow(at: number, windowSeconds: number): LimitWindow {
  const ms = windowSeconds * 1000;
  const index = Math.floor(at / ms);
  return { index, elapsed: (at - index * ms) / ms, reset: ((index + 1) * ms) / 1000 };
}

export const counterName = (limit: NamedLimit, index: number): string => `lw:${limit.name}:${limit.window_seconds}:${index}`;

/** A grant of credits (credits added by hand): spent after the refill allowance, soonest-expiring first. */
export interface Grant {
  n: number;
  exp: string | null;
}

export interface CreditState {
  left: number;
  period?: string;
  grants: Record<string, Grant>;
  /** The balance last set (the base of `credits.low` without a refill). */
  base?: number;
  /** The periods whose `credits.low` and `credits.exhausted` were sent (store/credit-notices.ts). */
  marks?: { low?: string; exhausted?: string };
  /** Credits leases took and have not spent (`cr_h`, domain/meter-lease.ts), by lease id. */
  held?: Record<string, Holding>;
}

/** What one lease holds: credits taken and not spent, until `exp` (epoch ms), of refill period `p`. */
export type Holding = { n: number; exp: number; p: string | null };

/** What one meter held when read or written. */
export interface MeterView {
  def: MeterDef;
  /** The limit counters, by attribute name. */
  counts: Record<string, number>;
  credits?: CreditState;
  /** A key's hourly windows (its usage item's `windows`). */
  windows?: Record<string, number>;
}

export function meterViewOf(item: Record<string, unknown>): MeterView {
  const counts: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) if (name.startsWith('lw:') && typeof value === 'number') counts[name] = value;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const credits =
    typeof item.cr_left === 'number'
      ? {
          left: item.cr_left,
          period: text(item.cr_period),
          grants: (item.cr_g ?? {}) as Record<string, Grant>,
          base: typeof item.cr_base === 'number' ? item.cr_base : undefined,
          marks: { low: text(item.cr_low), exhausted: text(item.cr_exh) },
          held: item.cr_h as Record<string, Holding> | undefined,
        }
      : undefined;
  return { def: parseMeterDef(item.meter_def), counts, credits, windows: item.windows as Record<string, number> | undefined };
}

const day = (at: Date): string => at.toISOString().slice(0, 10);
const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** The refill period holding `at`: `d:<date>` (daily, UTC) or `m:<year>-<month>` (monthly, from the refill day clamped to the month's end). */
export function refillPeriod(refill: CreditRefill, at: Date): string {
  if (refill.interval === 'daily') return `d:${day(at)}`;
  let year = at.getUTCFullYear();
  let month = at.getUTCMonth();
  if (at.getUTCDate() < Math.min(refill.day_of_month ?? 1, daysIn(year, month))) {
    month -= 1;
    if (month < 0) [year, month] = [year - 1, 11];
  }
  return `m:${year}-${String(month + 1).padStart(2, '0')}`;
}

/** Grants still spendable at `at`, in the order they are spent (soonest expiry first, then those that never expire; ties by id). */
export function liveGrants(grants: Record<string, Grant>, at: Date): [string, Grant][] {
  const now = at.getTime();
  return Object.entries(grants)
    .filter(([, grant]) => grant.n > 0 && (grant.exp === null || Date.parse(grant.exp) > now))
    .sort(([idA, a], [idB, b]) => (a.exp ?? '~').localeCompare(b.exp ?? '~') || idA.localeCompare(idB));
}

/** The credits as they stand at `at`: a refill due is applied (the write that spends first makes it so). */
export function creditsAt(state: CreditState, setting: CreditsSetting, at: Date): { left: number; period?: string; refillDue: boolean } {
  const refill = setting.refill;
  if (!refill) return { left: state.left, period: state.period, refillDue: false };
  const period = refillPeriod(refill, at);
  if (state.period === period) return { left: state.left, period, refillDue: false };
  return { left: refill.amount, period, refillDue: true };
}

/** Everything still spendable: what is left of the refill (or balance), the live grants, and what live leases hold of this period. */
export function creditsRemaining(state: CreditState, setting: CreditsSetting, at: Date): number {
  const { left, period, refillDue } = creditsAt(state, setting, at);
  const held = refillDue
    ? 0
    : Object.values(state.held ?? {})
        .filter((holding) => holding.exp > at.getTime() && holding.p === (period ?? null))
        .reduce((sum, holding) => sum + holding.n, 0);
  return left + held + liveGrants(state.grants, at).reduce((sum, [, grant]) => sum + grant.n, 0);
}

/** How a cost is paid: from what is left, then from grants; undefined when everything spendable is less than the cost. */
export interface Spending {
  fromLeft: number;
  grants: { id: string; had: number; take: number }[];
}

export function spendingOf(state: CreditState, setting: CreditsSetting, at: Date, cost: number): Spending | undefined {
  const { left } = creditsAt(state, setting, at);
  const fromLeft = Math.min(left, cost);
  let owed = cost - fromLeft;
  const grants: Spending['grants'] = [];
  for (const [id, grant] of liveGrants(state.grants, at)) {
    if (owed === 0) break;
    const take = Math.min(grant.n, owed);
    grants.push({ id, had: grant.n, take });
    owed -= take;
  }
  return owed === 0 ? { fromLeft, grants } : undefined;
}

/** One limit's figures in a verification's answer. */
export interface LimitFigure {
  name: string;
  owner: MeterOwner;
  limit: number;
  remaining: number;
  reset: number;
  /** The limit's window (for the RateLimit headers; not in the answer's body). */
  window_seconds: number;
}

/** A limit's previous and current counts in a meter at `at`, and its window. */
function limitCounts(view: MeterView, limit: NamedLimit, at: number) {
  const window = limitWindow(at, limit.window_seconds);
  const previous = view.counts[counterName(limit, window.index - 1)] ?? 0;
  const current = view.counts[counterName(limit, window.index)] ?? 0;
  return { window, previous, current, capacity: windowCapacity(previous, window.elapsed, limit.limit) };
}

export function limitFigure(view: MeterView, limit: NamedLimit, owner: MeterOwner, at: number): LimitFigure {
  const { window, current, capacity } = limitCounts(view, limit, at);
  return {
    name: limit.name,
    owner,
    limit: limit.limit,
    remaining: Math.max(0, Math.floor(capacity - current)),
    reset: window.reset,
    window_seconds: limit.window_seconds,
  };
}

/** Why a meter refuses one more verification costing `cost` at `at`, or undefined when it admits it. */
export type MeterRefusal = { reason: 'limit'; retryAt: number } | { reason: 'credits' };

export function judgeMeter(view: MeterView, scopes: readonly string[], at: Date, cost: number): MeterRefusal | undefined {
  const now = at.getTime();
  let retryAt: number | undefined;
  for (const limit of view.def.limits.filter((l) => limitApplies(l, scopes))) {
    const { previous, current, capacity } = limitCounts(view, limit, now);
    if (current + 1 > capacity) {
      const again = admittedAgainAt(previous, current, at, limit.limit, limit.window_seconds * 1000);
      retryAt = Math.max(retryAt ?? 0, again);
    }
  }
  if (retryAt !== undefined) return { reason: 'limit', retryAt };
  const setting = view.def.credits;
  if (setting && cost > 0 && !spendingOf(view.credits ?? { left: 0, grants: {} }, setting, at, cost)) return { reason: 'credits' };
  return undefined;
}

/** Limits and credits as a create or update request gives them (`credits.remaining`: the balance to start from). */
export interface MeterInput {
  limits?: NamedLimit[];
  credits?: { remaining: number; refill?: CreditRefill | null } | null;
}

export function meterDefOfInput(input: MeterInput): MeterDef {
  return { limits: input.limits ?? [], credits: input.credits ? { refill: input.credits.refill ?? null } : null };
}

/** A new meter's attributes (none when the owner uses neither limits nor credits): the balance starts in the period holding `at`. */
export function newMeterAttributes(input: MeterInput, at: Date): Record<string, unknown> {
  const def = meterDefOfInput(input);
  if (!usesMeter(def)) return {};
  const refill = def.credits?.refill;
  return {
    meter_def: meterDefText(def),
    ...(input.credits
      ? { cr_left: input.credits.remaining, cr_base: input.credits.remaining, cr_g: {}, cr_h: {}, ...(refill ? { cr_period: refillPeriod(refill, at) } : {}) }
      : {}),
  };
}

/** The limits and credits a resource shows (omitted fields: none): credits with everything still spendable at `at`. */
export function meterResource(
  def: MeterDef,
  state: CreditState | undefined,
  at: Date,
): { limits?: NamedLimit[]; credits?: { remaining: number; refill: CreditRefill | null } } {
  return {
    ...(def.limits.length > 0 ? { limits: def.limits } : {}),
    ...(def.credits ? { credits: { remaining: state ? creditsRemaining(state, def.credits, at) : 0, refill: def.credits.refill } } : {}),
  };
}
