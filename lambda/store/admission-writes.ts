/**
 * The writes of one metered admission (metered-use.ts): each meter's
 * clauses (meter-clauses.ts), the key's with the use's recording beside
 * them. An identity the verification spends nothing of takes no part.
 *
 * When both meters are written (a transaction, which returns no items) and
 * every figure of the answer can be asserted as seen, the writes are exact
 * (`MeterWrite.exact`): the meters after them are known without a read. A
 * key this process has not seen yet is assumed fresh (no use in its current
 * and previous windows); a wrong assumption fails the write, which returns
 * the meter as it was, as any stale copy does.
 */
import { meterDefText, type MeterView } from '../domain/meters';
import type { Holding } from '../domain/meters';
import type { UsageDelta } from '../domain/usage-delta';
import { latest } from '../domain/usage-delta';
import { exactFor, meterClauses, type MeterClauses } from './meter-clauses';
import { chargedOwner, type MeteredUse, type MeterPart, type ViewOf } from './meter-judgement';
import { usageClauses } from './usage-writes';
import { dayOf, USAGE_DAYS_KEPT } from '../domain/usage-figures';
import { keyIdTime } from '../platform/ids';
import { RecentMap } from '../platform/recent-map';
import type { ItemKey } from '../contract/tables';

export interface AdmissionWrite {
  part: MeterPart;
  clauses: MeterClauses;
}

export interface AdmissionPlan {
  use: MeteredUse;
  parts: readonly MeterPart[];
  viewOf: ViewOf;
  delta: UsageDelta;
  /** Copied days the key's write removes (usage-months.ts). */
  copied: string[];
  /** A block taken by this write, and the holding of its credits. */
  taking?: { block: number; hold?: { id: string } & Holding };
  holdMs: number;
  /** Whether the write may be exact; `keyFresh`: the key was never seen here, so it is assumed fresh. */
  exact: false | { keyFresh: boolean };
}

/** The clauses of each meter's write; exact when the plan allows it and both meters are written. */
export function admissionWrites(plan: AdmissionPlan): AdmissionWrite[] {
  const loose = writesOf(plan, undefined);
  const { exact: allowed } = plan;
  if (!allowed || loose.length < 2 || plan.taking) return loose;
  const charged = chargedOwner(plan.parts);
  const views = loose.map(({ part }) => plan.viewOf(part.key) ?? (part.owner === 'key' && allowed.keyFresh ? freshView(plan.use) : undefined));
  const exact = loose.every(({ part }, i) => exactFor(views[i], part.def, part.owner === charged, plan.use.cost));
  return exact ? writesOf(plan, views as MeterView[]) : loose;
}

/** A key never seen: no use in any window (its credits unknown, so never exact when they are charged). */
const freshView = (use: MeteredUse): MeterView => ({ def: use.keyDef, counts: {}, windows: {} });

function writesOf(plan: AdmissionPlan, exactViews: MeterView[] | undefined): AdmissionWrite[] {
  const { use, parts, taking } = plan;
  const charged = chargedOwner(parts);
  return (
    parts
      .map((part, i) => {
        const c = meterClauses({
          def: part.def,
          defText: meterDefText(part.def),
          view: exactViews?.[i] ?? plan.viewOf(part.key),
          scopes: use.scopes,
          at: use.at,
          cost: part.owner === charged ? use.cost : 0,
          ...(taking ? { block: taking.block, ...(part.owner === charged ? { hold: taking.hold } : {}) } : {}),
          ...(part.owner === 'key' ? { hourly: use.rateLimit } : {}),
          dropHeldBefore: use.at.getTime() - plan.holdMs,
          ...(exactViews ? { exact: true } : {}),
        });
        if (part.owner === 'key') {
          // This write admits the use (its conditions are the meters' room): a VALID use if it is written.
          const usage = usageClauses(plan.delta, plan.copied, undefined, latest(plan.delta.lastValidAt, use.at));
          c.names = { ...c.names, ...usage.names };
          c.values = { ...c.values, ...usage.values };
          c.sets.push(...usage.sets);
          c.removes.push(...usage.removes);
        }
        // The meter must exist (an identity with no meter yet, limits added by an edit this process has not seen, is written as one).
        c.conditions.unshift('attribute_exists(pk)');
        return { part, clauses: c };
      })
      // An identity this verification spends nothing of (its limits' scopes not asked, no credits charged) takes no part.
      .filter((write) => write.part.owner === 'key' || write.clauses.sets.length > 0)
  );
}

/** A key made fewer days ago than its usage item keeps (its id's time): it has no old days to copy (usage-months.ts). */
function youngerThanItsDays(keyId: string, at: Date): boolean {
  const made = keyIdTime(keyId);
  const age = made === undefined ? -1 : at.getTime() - made;
  return age >= 0 && age < (USAGE_DAYS_KEPT - 1) * 86_400_000;
}

/** A meter's name in a process's maps (metered-use.ts's copies, this file's marks). */
export const meterName = (key: ItemKey): string => `${key.pk}|${key.sk}`;

/**
 * Which of a process's admission writes may be exact: one alone on its
 * meters here (concurrent ones would fail each other's assertions), on
 * meters this process's copy of is current as far as it knows, of a
 * key never seen here (assumed fresh), made fewer days ago than its usage
 * item keeps, or whose usage item was seen whole today: an exact write
 * does not return it, so an older key's old days are copied
 * (usage-months.ts) by a write that does, at least once a day.
 */
export class Exactness {
  private readonly seenWhole = new RecentMap<string, string>(10_000);
  private readonly writing = new Map<string, number>();
  /** Meters this process changed by writes that did not return them (a lease's flush or give-back): its copy is stale. */
  private readonly changedUnseen = new RecentMap<string, true>(10_000);

  allows(use: MeteredUse, parts: readonly MeterPart[], viewOf: ViewOf): false | { keyFresh: boolean } {
    if (parts.some((part) => this.writing.has(meterName(part.key)) || this.changedUnseen.has(meterName(part.key)))) return false;
    const keyFresh = !viewOf(parts[0]!.key);
    return keyFresh || this.seenWhole.get(use.keyId) === dayOf(use.at) || youngerThanItsDays(use.keyId, use.at) ? { keyFresh } : false;
  }

  /** After writes of these meters that did not return them. */
  changed(keys: readonly ItemKey[]): void {
    for (const key of keys) this.changedUnseen.set(meterName(key), true);
  }

  /** After a meter was seen as it is (a write or a read returned it). */
  seen(key: ItemKey): void {
    this.changedUnseen.delete(meterName(key));
  }

  /** After a write that returned the key's usage item, its old days copied. */
  sawWhole(keyId: string, at: Date): void {
    this.seenWhole.set(keyId, dayOf(at));
  }

  /** Runs an admission write of `parts`, counted in flight on their meters. */
  async inFlight<T>(parts: readonly MeterPart[], write: () => Promise<T>): Promise<T> {
    const names = parts.map((part) => meterName(part.key));
    for (const name of names) this.writing.set(name, (this.writing.get(name) ?? 0) + 1);
    try {
      return await write();
    } finally {
      for (const name of names) {
        const left = (this.writing.get(name) ?? 1) - 1;
        if (left > 0) this.writing.set(name, left);
        else this.writing.delete(name);
      }
    }
  }
}
