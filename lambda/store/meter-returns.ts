/**
 * The writes of a metered lease (domain/meter-lease.ts) besides the one
 * that takes its block: a flush (the uses admitted from memory, and the
 * holding brought down to what is still unspent) and a give-back at the
 * block's end (its unused slots to the windows they were taken in, its
 * unspent credits to the balance). Each is one UpdateItem of the key's
 * usage item, and one of its identity's meter when the block took part of
 * it (its limits' slots, the holding when the identity is charged); what
 * cannot be given back any more (the holding dropped by a balance set or a
 * refill, a window removed) is left, and the uses are recorded alone:
 * nothing is ever given back twice or into another period.
 */
import { conditionHeld } from './condition-held';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MeterBlock, MeterLeaseEnd } from '../domain/meter-lease';
import type { UsageDelta } from '../domain/usage-delta';
import type { ItemKey } from '../contract/tables';
import type { StoreTables } from './transactions';
import { usageClauses } from './usage-writes';
import type { MeterClauses } from './meter-clauses';
import { updateExpressionOf } from './update-expressions';
import { recordWithoutSlot } from './usage-windows';
import { USAGE } from './entities/usage';
import { IDENTITY } from './entities/identity';

type Tables = Pick<StoreTables, 'db' | 'keyTableName'>;
type HeldCredits = NonNullable<MeterBlock['hold']>;

function clausesOf(pending: UsageDelta | undefined, copied: readonly string[]): MeterClauses {
  const usage = pending ? usageClauses(pending, copied) : { sets: [], removes: [], names: {}, values: {} };
  return { sets: [...usage.sets], removes: [...usage.removes], conditions: ['attribute_exists(pk)'], names: { ...usage.names }, values: { ...usage.values } };
}

/** Sends `c` as one conditional UpdateItem; false when a condition failed. */
async function send(tables: Tables, item: ItemKey, c: MeterClauses): Promise<boolean> {
  if (c.sets.length === 0 && c.removes.length === 0) return true;
  return conditionHeld(
    tables.db.send(
      new UpdateCommand({
        TableName: tables.keyTableName,
        Key: item,
        UpdateExpression: updateExpressionOf(c),
        ConditionExpression: c.conditions.join(' AND '),
        ...(Object.keys(c.names).length > 0 ? { ExpressionAttributeNames: c.names } : {}),
        ...(Object.keys(c.values).length > 0 ? { ExpressionAttributeValues: c.values } : {}),
      }),
    ),
  );
}

/** The holding `hold` on the meter, and the refill period it belongs to, must still be there. */
function holdingThere(c: MeterClauses, hold: Pick<HeldCredits, 'id' | 'p'>): void {
  c.names['#ch'] = 'cr_h';
  c.names['#hid'] = hold.id;
  c.conditions.push('attribute_exists(#ch.#hid)');
  if (hold.p !== null) {
    c.names['#cp'] = 'cr_period';
    c.values[':hp'] = hold.p;
    c.conditions.push('#cp = :hp');
  }
}

/** Writes the pending uses and, when it is on the key's meter, the holding's unspent credits (`unspent`); the uses alone when the holding is gone. */
export async function flushLeased(
  tables: Tables,
  keyId: string,
  pending: UsageDelta | undefined,
  copied: readonly string[],
  hold: Pick<HeldCredits, 'id' | 'p'> | undefined,
  unspent: number,
): Promise<void> {
  const c = clausesOf(pending, copied);
  if (hold) {
    holdingThere(c, hold);
    c.values[':hn'] = unspent;
    c.sets.push('#ch.#hid.n = :hn');
  }
  if (await send(tables, USAGE.key(keyId), c)) return;
  if (pending) await recordWithoutSlot(tables, keyId, pending, copied);
}

/** Brings a holding on an identity's meter down to what is still unspent; nothing when the holding is gone. */
export async function flushHolding(tables: Tables, identityId: string, hold: Pick<HeldCredits, 'id' | 'p'>, unspent: number): Promise<void> {
  const c = clausesOf(undefined, []);
  holdingThere(c, hold);
  c.values[':hn'] = unspent;
  c.sets.push('#ch.#hid.n = :hn');
  await send(tables, IDENTITY.key(identityId), c);
}

type Counter = { path: string; nested: boolean };

/**
 * Gives back `unused` slots of `counters` and, while its holding is there,
 * the unspent `credits`, on the meter at `item`, with `base`'s clauses
 * (the pending uses, on the key's meter): credits first, then slots alone;
 * false when neither could be written.
 */
async function returned(
  tables: Tables,
  item: ItemKey,
  base: () => MeterClauses,
  counters: readonly Counter[],
  unused: number,
  credits: { hold: HeldCredits; back: number } | undefined,
): Promise<boolean> {
  const slots = (c: MeterClauses) => {
    if (unused === 0 || counters.length === 0) return;
    c.values[':un'] = unused;
    counters.forEach(({ path, nested }, i) => {
      c.names[`#gb${i}`] = path;
      const attribute = nested ? `windows.#gb${i}` : `#gb${i}`;
      c.conditions.push(`attribute_exists(${attribute})`);
      c.sets.push(`${attribute} = ${attribute} - :un`);
    });
  };
  const withCredits = base();
  slots(withCredits);
  if (credits) {
    holdingThere(withCredits, credits.hold);
    withCredits.removes.push('#ch.#hid');
    if (credits.back > 0) {
      withCredits.names['#cl'] = 'cr_left';
      withCredits.values[':back'] = credits.back;
      withCredits.sets.push('#cl = #cl + :back');
    }
  }
  if (await send(tables, item, withCredits)) return true;
  const slotsOnly = base();
  slots(slotsOnly);
  return send(tables, item, slotsOnly);
}

/**
 * Gives back what an ended block did not use: slots to the counters of
 * `live` (those of windows that still count), the unspent credits while
 * its holding is there; with the pending uses. On the key's meter, then on
 * its identity's when the block took part of it.
 */
export async function giveBack(
  tables: Tables,
  keyId: string,
  end: MeterLeaseEnd,
  copied: readonly string[],
  live: (counter: string) => boolean,
): Promise<void> {
  const { block, unused, pending } = end;
  const hold = block?.hold;
  const creditsOn = (owner: HeldCredits['on']) => (hold && block && hold.on === owner ? { hold, back: unused * block.cost } : undefined);
  const keyCounters: Counter[] = block
    ? [
        ...block.counters.limits.filter(live).map((path) => ({ path, nested: false })),
        ...(live(block.counters.hourly) ? [{ path: block.counters.hourly, nested: true }] : []),
      ]
    : [];
  const keyReturned = await returned(tables, USAGE.key(keyId), () => clausesOf(pending, copied), keyCounters, unused, creditsOn('key'));
  if (!keyReturned && pending) await recordWithoutSlot(tables, keyId, pending, copied);
  const identity = block?.counters.identity;
  if (identity) {
    const counters = identity.limits.filter(live).map((path) => ({ path, nested: false }));
    await returned(tables, IDENTITY.key(identity.id), () => clausesOf(undefined, []), counters, unused, creditsOn('identity'));
  }
}
