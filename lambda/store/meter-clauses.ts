/**
 * The clauses of one meter's admission write (domain/meters.ts), as data:
 * every count and balance the decision rests on is asserted in the
 * condition, so the write succeeds only when the meter still admits it and
 * consumes exactly one slot of each applicable limit and `cost` credits.
 *
 * - the definition: `meter_def = :def` (a limit edited meanwhile fails the write);
 * - each limit: the previous window's count as this process last saw it
 *   (0 unseen), and the current window's count at most its room under the
 *   sliding estimate; the count then grows by one;
 * - credits, when this meter is charged: what is left covers the cost, in
 *   the refill period now due; or, when a refill is due or grants must pay,
 *   the exact balance seen, then the new one (a refill is conditional on the
 *   period it replaces, so it happens once however often it is attempted).
 *
 * A failed condition returns the meter as it was (ALL_OLD): the store judges
 * that exactly and either refuses or writes again with what it learned.
 */
import { windowCapacity } from '../domain/rate-window';
import {
  counterName,
  creditsAt,
  limitApplies,
  type CreditState,
  limitWindow,
  refillPeriod,
  spendingOf,
  type CreditsSetting,
  type Holding,
  type MeterDef,
  type MeterView,
  usesMeter,
} from '../domain/meters';

export interface MeterClauses {
  names: Record<string, string>;
  values: Record<string, unknown>;
  sets: string[];
  removes: string[];
  conditions: string[];
  /** An exact write's meter after it (`MeterWrite.exact`): every figure it shows was asserted as seen, then changed by the write. */
  after?: MeterView;
}

export interface MeterWrite {
  def: MeterDef;
  defText: string;
  /** The meter as this process last saw it (undefined: never). */
  view: MeterView | undefined;
  scopes: readonly string[];
  at: Date;
  /** Credits to charge this meter (0: none, or charged elsewhere). */
  cost: number;
  /** A key's hourly limit (its usage item's `windows`), counted in the same write. */
  hourly?: number;
  /** Uses taken at once (a lease's block, domain/meter-lease.ts); default 1. */
  block?: number;
  /** The holding of the block's credits not spent yet (`cr_h.<id>`), when it takes credits. */
  hold?: { id: string } & Holding;
  /** Holdings that ended before this instant (epoch ms) are dropped: nobody gave them back. */
  dropHeldBefore?: number;
  /**
   * Asserts every figure the answer shows as `view` has it (each current
   * window's count, what is left, no grants or holdings), so the meter after
   * the write is known without reading it (`MeterClauses.after`): for a
   * transaction, which returns no items. Only for a view `exactFor` accepts.
   */
  exact?: boolean;
}

/** Whether an exact write can assert every figure of `view`: when the answer shows its credits (`charged`), their state seen, with no grants or holdings to pin, and a cost. */
export function exactFor(view: MeterView | undefined, def: MeterDef, charged: boolean, cost: number): view is MeterView {
  if (!view) return false;
  if (!def.credits || !charged) return true;
  const state = view.credits;
  return cost > 0 && state !== undefined && Object.keys(state.grants).length === 0 && Object.keys(state.held ?? {}).length === 0;
}

/** Old counters removed by one write, at most. */
const MAX_STALE_REMOVED = 10;

/** One window's clauses: the previous count as seen, the current within `room` (and, for an exact write, as seen), then one more. */
function window(
  c: MeterClauses,
  tag: string,
  current: string,
  previous: string,
  seen: { previous: number; current?: number },
  room: number,
  block: number,
): void {
  const seenPrevious = seen.previous;
  c.values[':m0'] = 0;
  c.values[':m1'] = block;
  c.values[`:r${tag}`] = room;
  if (seenPrevious !== 0) c.values[`:p${tag}`] = seenPrevious;
  c.conditions.push(seenPrevious === 0 ? `(attribute_not_exists(${previous}) OR ${previous} = :m0)` : `${previous} = :p${tag}`);
  if (seen.current === 0) c.conditions.push(`(attribute_not_exists(${current}) OR ${current} = :m0)`);
  else if (seen.current !== undefined) {
    c.values[`:c${tag}`] = seen.current;
    c.conditions.push(`${current} = :c${tag}`);
  }
  // Below one slot of room, the counter must exist and be at most the room: a failed write, then the exact judgement.
  c.conditions.push(room >= 0 ? `(attribute_not_exists(${current}) OR ${current} <= :r${tag})` : `${current} <= :r${tag}`);
  c.sets.push(`${current} = if_not_exists(${current}, :m0) + :m1`);
}

function credits(c: MeterClauses, setting: CreditsSetting, write: MeterWrite, after: MeterView | undefined): void {
  const { view, at } = write;
  const cost = write.cost * (write.block ?? 1);
  c.names['#cl'] = 'cr_left';
  c.names['#ch'] = 'cr_h';
  const period = setting.refill ? refillPeriod(setting.refill, at) : undefined;
  if (period !== undefined) {
    c.names['#cp'] = 'cr_period';
    c.values[':cp'] = period;
  }
  const state = view?.credits;
  const spending = state && spendingOf(state, setting, at, cost);
  const due = state !== undefined && creditsAt(state, setting, at).refillDue;
  if (after && state) exactCredits(c, after, state, due ? creditsAt(state, setting, at).left - cost : state.left - cost, period);
  if (!state || !spending || (!due && spending.grants.length === 0)) {
    // What is left pays (or the write fails and the meter as it was decides).
    if (period !== undefined) c.conditions.push('#cp = :cp');
    c.values[':cost'] = cost;
    c.conditions.push('#cl >= :cost');
    c.sets.push('#cl = #cl - :cost');
    holdings(c, write);
    return;
  }
  c.values[':noh'] = {};
  if (due) {
    // A refill replaces what is left, and what leases held of the period before (their return then fails its condition).
    c.sets.push('#ch = :noh');
    if (state.period === undefined) c.conditions.push('attribute_not_exists(#cp)');
    else {
      c.values[':cpo'] = state.period;
      c.conditions.push('#cp = :cpo');
    }
    c.sets.push('#cp = :cp');
  } else {
    c.sets.push('#ch = if_not_exists(#ch, :noh)');
    if (period !== undefined) c.conditions.push('#cp = :cp');
    c.values[':clo'] = state.left;
    c.conditions.push('#cl = :clo');
  }
  c.values[':cln'] = creditsAt(state, setting, at).left - spending.fromLeft;
  c.sets.push('#cl = :cln');
  if (spending.grants.length > 0) c.names['#cg'] = 'cr_g';
  spending.grants.forEach((grant, i) => {
    c.names[`#g${i}`] = grant.id;
    c.values[`:gh${i}`] = grant.had;
    c.values[`:gn${i}`] = grant.had - grant.take;
    c.conditions.push(`#cg.#g${i}.n = :gh${i}`);
    c.sets.push(`#cg.#g${i}.n = :gn${i}`);
  });
}

/**
 * An exact write's credits (`exactFor`: no grants, no holdings): what is
 * left as seen, no grant or holding added meanwhile; after it, `left`.
 */
function exactCredits(c: MeterClauses, after: MeterView, state: CreditState, left: number, period: string | undefined): void {
  c.names['#cg'] = 'cr_g';
  c.values[':m0'] = 0;
  c.values[':cle'] = state.left;
  c.conditions.push('#cl = :cle', '(attribute_not_exists(#cg) OR size(#cg) = :m0)', '(attribute_not_exists(#ch) OR size(#ch) = :m0)');
  after.credits = { ...state, left, period: period ?? state.period, grants: {}, held: {} };
}

/**
 * The holdings' part of a credits write that pays from what is left: the
 * block's holding, and those nobody gave back dropped, when the meter is
 * known to have its `cr_h` map; else the map is made (a block of 1).
 */
function holdings(c: MeterClauses, write: MeterWrite): void {
  const held = write.view?.credits?.held;
  if (held === undefined) {
    if (write.hold) throw new Error("a holding needs the meter's cr_h map seen first");
    c.values[':noh'] = {};
    c.sets.push('#ch = if_not_exists(#ch, :noh)');
    return;
  }
  c.conditions.push('attribute_exists(#ch)');
  if (write.hold) {
    const { id, ...holding } = write.hold;
    c.names['#hid'] = id;
    c.values[':hold'] = holding;
    c.sets.push('#ch.#hid = :hold');
  }
  Object.entries(held)
    .filter(([, holding]) => holding.exp < (write.dropHeldBefore ?? 0))
    .slice(0, MAX_STALE_REMOVED)
    .forEach(([id], i) => {
      c.names[`#hx${i}`] = id;
      c.removes.push(`#ch.#hx${i}`);
    });
}

/** Counters this meter no longer needs: windows before the previous one, and those of limits it no longer has. */
function staleCounters(write: MeterWrite, now: number): string[] {
  const wanted = new Map(write.def.limits.map((limit) => [`lw:${limit.name}:${limit.window_seconds}:`, limitWindow(now, limit.window_seconds).index - 1]));
  return Object.keys(write.view?.counts ?? {})
    .filter((name) => {
      const prefix = name.slice(0, name.lastIndexOf(':') + 1);
      const oldest = wanted.get(prefix);
      return oldest === undefined || Number(name.slice(prefix.length)) < oldest;
    })
    .slice(0, MAX_STALE_REMOVED);
}

export function meterClauses(write: MeterWrite): MeterClauses {
  const { def, view, scopes, at } = write;
  const now = at.getTime();
  const block = write.block ?? 1;
  const c: MeterClauses = { names: { '#md': 'meter_def' }, values: {}, sets: [], removes: [], conditions: [] };
  const after = write.exact && view ? { ...view, counts: { ...view.counts }, windows: { ...view.windows } } : undefined;
  if (usesMeter(def)) {
    c.values[':md'] = write.defText;
    c.conditions.push('#md = :md');
  } else c.conditions.push('attribute_not_exists(#md)');
  def.limits.forEach((limit, i) => {
    if (!limitApplies(limit, scopes)) return;
    const { index, elapsed } = limitWindow(now, limit.window_seconds);
    const [name, previous] = [counterName(limit, index), view?.counts[counterName(limit, index - 1)] ?? 0];
    c.names[`#cl${i}`] = name;
    c.names[`#pl${i}`] = counterName(limit, index - 1);
    const current = after ? (after.counts[name] ?? 0) : undefined;
    window(c, `l${i}`, `#cl${i}`, `#pl${i}`, { previous, current }, Math.floor(windowCapacity(previous, elapsed, limit.limit)) - block, block);
    if (after) after.counts[name] = (current ?? 0) + block;
  });
  staleCounters(write, now).forEach((name, i) => {
    c.names[`#old${i}`] = name;
    c.removes.push(`#old${i}`);
    if (after) delete after.counts[name];
  });
  if (write.hourly !== undefined) hourly(c, write, write.hourly, after);
  if (def.credits && write.cost > 0) credits(c, def.credits, write, after);
  if (after) c.after = after;
  return c;
}

/** A key's hourly limit, counted in its usage item's `windows` (the windows before the previous one removed). */
function hourly(c: MeterClauses, write: MeterWrite, limit: number, after: MeterView | undefined): void {
  const block = write.block ?? 1;
  const { index, elapsed } = limitWindow(write.at.getTime(), 3600);
  const previous = write.view?.windows?.[String(index - 1)] ?? 0;
  c.names['#hw'] = String(index);
  c.names['#hp'] = String(index - 1);
  const current = after ? (after.windows?.[String(index)] ?? 0) : undefined;
  window(c, 'h', 'windows.#hw', 'windows.#hp', { previous, current }, Math.floor(windowCapacity(previous, elapsed, limit)) - block, block);
  const windows = after?.windows;
  if (windows) windows[String(index)] = (current ?? 0) + block;
  Object.keys(write.view?.windows ?? {})
    .filter((w) => Number(w) < index - 1)
    .slice(0, MAX_STALE_REMOVED)
    .forEach((w, i) => {
      c.names[`#hold${i}`] = w;
      c.removes.push(`windows.#hold${i}`);
      if (windows) delete windows[w];
    });
}
