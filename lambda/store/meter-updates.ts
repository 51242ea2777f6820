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

/** The SET and REMOVE clauses of a meter change (names `#mu…`, values `:mu…`). */
export function meterUpdateClauses(change: MeterChange): { sets: string[]; removes: string[]; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = { '#mud': 'meter_def' };
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  if (change.text === null) removes.push('#mud');
  else {
    sets.push('#mud = :mud');
    values[':mud'] = change.text;
  }
  if (change.credits !== undefined) {
    Object.assign(names, { '#mul': 'cr_left', '#mup': 'cr_period', '#mug': 'cr_g', '#mub': 'cr_base' });
    // Without a refill, a balance set (or none) starts a new period for credits.low and credits.exhausted.
    if (change.credits === null || change.credits.period === undefined) Object.assign(names, { '#mulow': 'cr_low', '#muexh': 'cr_exh' });
    if (change.credits === null) removes.push('#mul', '#mup', '#mug', '#mub', '#mulow', '#muexh');
    else {
      sets.push('#mul = :mul', '#mub = :mul', '#mug = if_not_exists(#mug, :mug)');
      Object.assign(values, { ':mul': change.credits.remaining, ':mug': {} });
      if (change.credits.period === undefined) removes.push('#mup', '#mulow', '#muexh');
      else {
        sets.push('#mup = :mup');
        values[':mup'] = change.credits.period;
      }
    }
  }
  return { sets, removes, names, values };
}

/** The meter item's update in the owner's transaction (it must exist). */
export function meterUpdateItem(table: string, key: ItemKey, change: MeterChange): TransactItem {
  const c = meterUpdateClauses(change);
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: [c.sets.length > 0 ? `SET ${c.sets.join(', ')}` : '', c.removes.length > 0 ? `REMOVE ${c.removes.join(', ')}` : '']
        .filter(Boolean)
        .join(' '),
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: c.names,
      ...(Object.keys(c.values).length > 0 ? { ExpressionAttributeValues: c.values } : {}),
    },
  };
}
