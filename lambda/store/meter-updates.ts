/**
 * The write of a meter's definition and balance (domain/meter-changes.ts)
 * on its item, a key's usage item or an identity's own item, as one item of
 * the owner's update transaction. The counters stay: a limit kept under
 * the same name and window keeps counting; those of limits gone are removed
 * by the next admissions (meter-clauses.ts).
 */
import type { ItemKey } from '../contract/tables';
import type { MeterChange } from '../domain/meter-changes';
import type { TransactItem } from './transactions';
import { updateExpressionOf } from './update-expressions';

export interface UpdateClauses {
  sets: string[];
  removes: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * A balance set on a meter (an owner's update, or an allowance set by hand):
 * `remaining` left, the base of `credits.low`, in the refill period given
 * (a refill due is replaced by it, not applied after it); without a refill
 * it starts a new period for credits.low and credits.exhausted. Names
 * `#mu…`, values `:mu…`; `#mul` is `cr_left`.
 */
export function balanceClauses(remaining: number, period: string | undefined): UpdateClauses {
  const c: UpdateClauses = {
    // What leases held goes with the balance they were taken from (their return then fails its condition).
    sets: ['#mul = :mul', '#mub = :mul', '#mug = if_not_exists(#mug, :mug)', '#muh = :mug'],
    removes: [],
    names: { '#mul': 'cr_left', '#mup': 'cr_period', '#mug': 'cr_g', '#mub': 'cr_base', '#muh': 'cr_h' },
    values: { ':mul': remaining, ':mug': {} },
  };
  if (period === undefined) {
    Object.assign(c.names, { '#mulow': 'cr_low', '#muexh': 'cr_exh' });
    c.removes.push('#mup', '#mulow', '#muexh');
  } else {
    c.sets.push('#mup = :mup');
    c.values[':mup'] = period;
  }
  return c;
}

/** The SET and REMOVE clauses of a meter change (names `#mu…`, values `:mu…`). */
export function meterUpdateClauses(change: MeterChange): UpdateClauses {
  const c: UpdateClauses = { sets: [], removes: [], names: { '#mud': 'meter_def' }, values: {} };
  if (change.text === null) c.removes.push('#mud');
  else {
    c.sets.push('#mud = :mud');
    c.values[':mud'] = change.text;
  }
  if (change.credits === null) {
    // Unlimited: the balance, its grants and its notice marks go.
    Object.assign(c.names, {
      '#mul': 'cr_left',
      '#mup': 'cr_period',
      '#mug': 'cr_g',
      '#mub': 'cr_base',
      '#mulow': 'cr_low',
      '#muexh': 'cr_exh',
      '#muh': 'cr_h',
    });
    c.removes.push('#mul', '#mup', '#mug', '#mub', '#mulow', '#muexh', '#muh');
  } else if (change.credits !== undefined) {
    const balance = balanceClauses(change.credits.remaining, change.credits.period);
    c.sets.push(...balance.sets);
    c.removes.push(...balance.removes);
    Object.assign(c.names, balance.names);
    Object.assign(c.values, balance.values);
  }
  return c;
}

/** A transaction's update of the meter at `key` by clauses `c`, under `condition`. */
export function meterItemUpdate(table: string, key: ItemKey, c: UpdateClauses, condition: string): TransactItem {
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: updateExpressionOf(c),
      ConditionExpression: condition,
      ExpressionAttributeNames: c.names,
      ...(Object.keys(c.values).length > 0 ? { ExpressionAttributeValues: c.values } : {}),
    },
  };
}

/** The meter item's update in the owner's transaction (it must exist). */
export function meterUpdateItem(table: string, key: ItemKey, change: MeterChange): TransactItem {
  return meterItemUpdate(table, key, meterUpdateClauses(change), 'attribute_exists(pk)');
}
