/**
 * What the meters of a metered use say (metered-use.ts), as this process
 * last saw them: why they refuse it, and the figures of the answer (the
 * hourly limit, each applicable named limit, the charged credits). Pure.
 */
import type { ItemKey } from '../contract/tables';
import {
  counterName,
  creditsAt,
  creditsRemaining,
  judgeMeter,
  limitApplies,
  limitFigure,
  limitWindow,
  meterDefText,
  refillPeriod,
  type CreditsSetting,
  type MeterDef,
  type Holding,
  type MeterOwner,
  type MeterView,
} from '../domain/meters';
import type { MeterFigures, UseToRecord } from '../domain/recording';
import type { MeterBlock } from '../domain/meter-lease';
import { admittedAgainAt, elapsedFraction, windowCapacity, windowIndex, windowResetAt, type RateLimitState } from '../domain/rate-window';

/** A use of a key with named limits or credits, or whose identity has them. */
export interface MeteredUse extends UseToRecord {
  /** The scopes the verification asked (a named limit with a scope counts only those it covers). */
  scopes: readonly string[];
  /** Credits the verification costs. */
  cost: number;
  /** The key's limits and credits, as its value lookup holds them. */
  keyDef: MeterDef;
  /** The key's identity and its limits and credits, when it has any; `item`: the identity's item as the verification read it (its meter beside it). */
  identity?: { id: string; def: MeterDef; item?: Record<string, unknown> };
  /** The key's team (the audit records of credits.low and credits.exhausted). */
  teamId: string;
}

/** One meter a use is admitted by: the key's or its identity's, and its definition as last known. */
export interface MeterPart {
  owner: MeterOwner;
  key: ItemKey;
  def: MeterDef;
}

/**
 * Why a metered use is refused: a limit (`hourlyRefused`: the key's hourly one among them), until `retryAt`; or credits.
 * `byIdentity`: the identity's meter refuses it on its own (one of its limits full, or its credits short when charged).
 */
export type MeterRefusal = ({ reason: 'RATE_LIMITED'; retryAt: number; hourlyRefused: boolean } | { reason: 'USAGE_EXCEEDED' }) & { byIdentity: boolean };

/** Whose credits a use is charged to: the key's when it has credits, else its identity's. */
export const chargedOwner = (parts: readonly MeterPart[]): MeterOwner => (parts[0]?.def.credits ? 'key' : 'identity');

/** The same rule for a use as it was checked: whose credits it is charged to, and their setting (none when neither has credits). */
function chargedOf(use: MeteredUse): { owner: MeterOwner; credits: CreditsSetting | null } {
  return use.keyDef.credits ? { owner: 'key', credits: use.keyDef.credits } : { owner: 'identity', credits: use.identity?.def.credits ?? null };
}

/** The meter at an item key as this process last saw it. */
export type ViewOf = (key: ItemKey) => MeterView | undefined;

/** Why the meters as last seen refuse `use`, or undefined. */
export function refusalOf(use: MeteredUse, parts: readonly MeterPart[], viewOf: ViewOf): MeterRefusal | undefined {
  let retryAt: number | undefined;
  let hourlyRefused = false;
  let credits = false;
  let byIdentity = false;
  const charged = chargedOwner(parts);
  for (const part of parts) {
    const view = viewOf(part.key);
    if (!view) continue;
    const judged = judgeMeter(view, use.scopes, use.at, part.owner === charged ? use.cost : 0);
    if (judged && part.owner === 'identity') byIdentity = true;
    if (judged?.reason === 'limit') retryAt = Math.max(retryAt ?? 0, judged.retryAt);
    if (judged?.reason === 'credits') credits = true;
    if (part.owner === 'key') {
      const hourly = hourlyOf(use, view);
      if (hourly.current + 1 > hourly.capacity) {
        hourlyRefused = true;
        retryAt = Math.max(retryAt ?? 0, admittedAgainAt(hourly.previous, hourly.current, use.at, use.rateLimit));
      }
    }
  }
  if (retryAt !== undefined) return { reason: 'RATE_LIMITED', retryAt, hourlyRefused, byIdentity };
  return credits ? { reason: 'USAGE_EXCEEDED', byIdentity } : undefined;
}

function hourlyOf(use: UseToRecord, view: MeterView | undefined) {
  const index = windowIndex(use.at);
  const previous = view?.windows?.[String(index - 1)] ?? 0;
  const current = view?.windows?.[String(index)] ?? 0;
  return { previous, current, capacity: windowCapacity(previous, elapsedFraction(use.at), use.rateLimit) };
}

function rateLimitOf(use: UseToRecord, view: MeterView | undefined): RateLimitState {
  const { current, capacity } = hourlyOf(use, view);
  return { limit: use.rateLimit, remaining: Math.max(0, Math.floor(capacity - current)), reset: windowResetAt(use.at) };
}

export function figuresOf(use: MeteredUse, parts: readonly MeterPart[], viewOf: ViewOf): { rateLimit: RateLimitState; meters: MeterFigures } {
  const meters: MeterFigures = { limits: [] };
  const charged = chargedOwner(parts);
  for (const part of parts) {
    const view = viewOf(part.key);
    if (!view) continue;
    for (const limit of view.def.limits) if (limitApplies(limit, use.scopes)) meters.limits.push(limitFigure(view, limit, part.owner, use.at.getTime()));
    if (part.owner === charged && view.def.credits)
      meters.credits = { remaining: creditsRemaining(view.credits ?? { left: 0, grants: {} }, view.def.credits, use.at) };
  }
  return { rateLimit: rateLimitOf(use, viewOf(parts[0]!.key)), meters };
}

/** The counters a key's own limits count `use` in (attribute names), and its hourly window (`windows` key). */
export function countersOf(use: MeteredUse, def: MeterDef): { limits: string[]; hourly: string } {
  return { limits: limitCounters(use, def), hourly: String(windowIndex(use.at)) };
}

/** The counters `def`'s limits count `use` in (attribute names). */
function limitCounters(use: MeteredUse, def: MeterDef): string[] {
  const now = use.at.getTime();
  return def.limits.filter((limit) => limitApplies(limit, use.scopes)).map((limit) => counterName(limit, limitWindow(now, limit.window_seconds).index));
}

/**
 * What a leased block is good for (domain/meter-lease.ts): the same
 * definitions (the key's, its identity's), cost, hourly limit, counters and
 * refill period of the credits charged.
 */
export function shapeOf(use: MeteredUse, counters = countersOf(use, use.keyDef)): string {
  const identity = use.identity ? [use.identity.id, meterDefText(use.identity.def), limitCounters(use, use.identity.def)] : null;
  const refill = chargedOf(use).credits?.refill;
  return JSON.stringify([meterDefText(use.keyDef), identity, use.cost, use.rateLimit, counters, refill ? refillPeriod(refill, use.at) : null]);
}

/**
 * The block of `size` uses like `use` a write took, with the figures it
 * left, as a lease keeps it: the counters it took slots of on the key's
 * meter and, when the write took part of it, on its identity's.
 */
export function blockOf(
  use: MeteredUse,
  size: number,
  figures: Pick<MeterBlock, 'rateLimit' | 'meters'>,
  hold: ({ id: string } & Holding) | undefined,
  identityWritten: boolean,
): MeterBlock {
  const counters = countersOf(use, use.keyDef);
  const charged = chargedOf(use);
  const identity = use.identity && identityWritten ? { id: use.identity.id, limits: limitCounters(use, use.identity.def) } : undefined;
  return {
    shape: shapeOf(use, counters),
    size,
    cost: charged.credits ? use.cost : 0,
    ...figures,
    counters: { ...counters, ...(identity ? { identity } : {}) },
    hold: hold && { ...hold, on: charged.owner },
    takenAt: use.at.getTime(),
  };
}

/**
 * How many uses like `use` a meter as last seen leaves room for (every
 * applicable limit, the key's hourly one when `hourly`, the credits when it
 * is `charged`); Infinity when nothing of it counts the use; undefined when
 * a block cannot be taken: the meter unseen, a refill due, credits owed to
 * grants, or no holdings map yet.
 */
export function roomOf(use: MeteredUse, part: Pick<MeterPart, 'owner' | 'def'>, view: MeterView | undefined, charged: boolean): number | undefined {
  if (!view) return undefined;
  const { def, owner } = part;
  const now = use.at.getTime();
  let room = Number.POSITIVE_INFINITY;
  for (const limit of def.limits) if (limitApplies(limit, use.scopes)) room = Math.min(room, limitFigure(view, limit, owner, now).remaining);
  if (owner === 'key') {
    const hourly = hourlyOf(use, view);
    room = Math.min(room, Math.floor(hourly.capacity - hourly.current));
  }
  if (charged && def.credits && use.cost > 0) {
    const state = view.credits;
    if (!state || state.held === undefined || creditsAt(state, def.credits, use.at).refillDue) return undefined;
    room = Math.min(room, Math.floor(state.left / use.cost));
  }
  return room;
}

/** Whether a counter a block counted in (a limit's `lw:…` name, or an hourly window's index) still counts at `now`: its window is the current or the previous one. */
export function counterLive(counter: string, now: number): boolean {
  const parts = counter.split(':');
  if (parts.length === 1) return Number(counter) >= windowIndex(new Date(now)) - 1;
  const seconds = Number(parts[2]);
  return Number(parts[3]) >= limitWindow(now, seconds).index - 1;
}

/**
 * The block a lease's write asks for (`nextBlock` sizes it from the room):
 * more than one use only for the definitions the verification was checked
 * under (the key's, its identity's), with room in every meter it takes
 * part of; with a holding of its credits on the meter charged.
 */
export function blockWanted(
  use: MeteredUse,
  parts: readonly MeterPart[],
  viewOf: ViewOf,
  nextBlock: (room: number | undefined) => number,
  settings: { holdMs: number; holdId: () => string },
): { block: number; hold?: { id: string } & Holding } | undefined {
  const checkedUnder = (part: MeterPart) => (part.owner === 'key' ? use.keyDef : use.identity?.def);
  if (parts.some((part) => meterDefText(part.def) !== meterDefText(checkedUnder(part) ?? part.def)) || (use.identity && parts.length < 2)) return undefined;
  const charged = chargedOwner(parts);
  const rooms = parts.map((part) => roomOf(use, part, viewOf(part.key), part.owner === charged));
  const room = rooms.includes(undefined) ? undefined : Math.min(...(rooms as number[]));
  const block = nextBlock(room !== undefined && Number.isFinite(room) ? room : undefined);
  if (block <= 1) return undefined;
  const setting = parts.find((part) => part.owner === charged)?.def.credits;
  if (!setting || use.cost === 0) return { block };
  const now = use.at.getTime();
  const period = setting.refill ? refillPeriod(setting.refill, use.at) : null;
  return { block, hold: { id: settings.holdId(), n: (block - 1) * use.cost, exp: now + settings.holdMs, p: period } };
}
