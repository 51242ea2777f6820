/**
 * A property of exact admission writes (store/meter-clauses.ts `exact`,
 * seeded so a failure replays): for a random meter (named limits, a key's
 * hourly windows, credits with or without a refill due) and a random cost,
 * the write DynamoDB Local applies leaves exactly the meter the clauses
 * predicted (`after`), figure by figure; and when the meter does not admit
 * the use, the write fails and changes nothing. The answer of a verification
 * whose admission is a transaction is built from that prediction.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambda/composition/dynamo';
import {
  counterName,
  creditsRemaining,
  judgeMeter,
  limitFigure,
  limitWindow,
  meterDefText,
  meterViewOf,
  refillPeriod,
  usesMeter,
  type MeterDef,
  type MeterView,
} from '../../lambda/domain/meters';
import { windowCapacity } from '../../lambda/domain/rate-window';
import { exactFor, meterClauses } from '../../lambda/store/meter-clauses';
import { updateExpressionOf } from '../../lambda/store/update-expressions';
import { loadCount } from '../support/load';

const SEED = 20261129;
/** Meters tried: 100 in `npm test`, 400 in CI's long run (`LOAD_SCALE=1`). */
const RUNS = loadCount(400);
const AT = new Date('2026-12-15T10:20:30.500Z');
const WINDOWS = [1, 60, 3600, 86_400] as const;

const meter = fc.record({
  limits: fc.uniqueArray(
    fc.record({ name: fc.constantFrom('a', 'b', 'c'), limit: fc.integer({ min: 1, max: 20 }), window_seconds: fc.constantFrom(...WINDOWS) }),
    {
      maxLength: 3,
      selector: (limit) => limit.name,
    },
  ),
  counts: fc.array(fc.record({ previous: fc.integer({ min: 0, max: 10 }), current: fc.integer({ min: 0, max: 10 }) }), { minLength: 3, maxLength: 3 }),
  hourly: fc.record({ limit: fc.integer({ min: 1, max: 60 }), previous: fc.integer({ min: 0, max: 30 }), current: fc.integer({ min: 0, max: 30 }) }),
  credits: fc.option(
    fc.record({ left: fc.integer({ min: 0, max: 30 }), refill: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }), due: fc.boolean() }),
    { nil: undefined },
  ),
  cost: fc.integer({ min: 0, max: 6 }),
});

type Meter = typeof meter extends fc.Arbitrary<infer T> ? T : never;

function itemOf(pk: string, m: Meter): { item: Record<string, unknown>; def: MeterDef } {
  const def: MeterDef = {
    limits: m.limits,
    credits: m.credits ? { remaining: m.credits.left, ...(m.credits.refill ? { refill: { interval: 'daily', amount: m.credits.refill } } : {}) } : null,
  } as MeterDef;
  const item: Record<string, unknown> = { pk, sk: 'METER', ...(usesMeter(def) ? { meter_def: meterDefText(def) } : {}) };
  m.limits.forEach((limit, i) => {
    const { index } = limitWindow(AT.getTime(), limit.window_seconds);
    item[counterName(limit, index - 1)] = m.counts[i]!.previous;
    item[counterName(limit, index)] = m.counts[i]!.current;
  });
  const hour = limitWindow(AT.getTime(), 3600).index;
  item.windows = { [String(hour - 1)]: m.hourly.previous, [String(hour)]: m.hourly.current };
  if (m.credits) {
    item.cr_left = m.credits.left;
    item.cr_h = {};
    if (def.credits?.refill) item.cr_period = m.credits.due ? 'd:2026-12-14' : refillPeriod(def.credits.refill, AT);
  }
  return { item, def };
}

/** What the answer shows of a meter: each limit's figure, the hourly window's count, the credits remaining. */
function figures(view: MeterView, hour: number) {
  return {
    limits: view.def.limits.map((limit) => limitFigure(view, limit, 'key', AT.getTime())),
    hourly: view.windows?.[String(hour)] ?? 0,
    credits: view.def.credits ? creditsRemaining(view.credits ?? { left: 0, grants: {} }, view.def.credits, AT) : null,
  };
}

describe('exact admission writes (store/meter-clauses.ts)', () => {
  it('leave exactly the meter they predict, or fail and change nothing when the meter refuses', async () => {
    const db = documentClient();
    const table = process.env.KEY_TABLE_NAME;
    const hour = limitWindow(AT.getTime(), 3600).index;
    let written = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(meter, async (m) => {
        const pk = `EXACT#${randomUUID()}`;
        const { item, def } = itemOf(pk, m);
        await db.send(new PutCommand({ TableName: table, Item: item }));
        const view = meterViewOf(item);
        if (!exactFor(view, def, true, m.cost)) return;
        const c = meterClauses({ def, defText: meterDefText(def), view, scopes: [], at: AT, cost: m.cost, hourly: m.hourly.limit, exact: true });
        const hourlyRoom = Math.floor(windowCapacity(m.hourly.previous, limitWindow(AT.getTime(), 3600).elapsed, m.hourly.limit)) - 1;
        const admits = !judgeMeter(view, [], AT, m.cost) && m.hourly.current <= hourlyRoom;
        try {
          const result = await db.send(
            new UpdateCommand({
              TableName: table,
              Key: { pk, sk: 'METER' },
              UpdateExpression: updateExpressionOf(c),
              ConditionExpression: c.conditions.join(' AND '),
              ExpressionAttributeNames: c.names,
              ExpressionAttributeValues: c.values,
              ReturnValues: 'ALL_NEW',
            }),
          );
          written++;
          expect(admits).toBe(true);
          expect(figures(meterViewOf(result.Attributes ?? {}), hour)).toEqual(figures(c.after as MeterView, hour));
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          refused++;
          expect(admits).toBe(false);
          const { Item } = await db.send(new GetCommand({ TableName: table, Key: { pk, sk: 'METER' }, ConsistentRead: true }));
          expect(Item).toEqual(item);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Both outcomes were drawn, each in more than a tenth of the runs (a property that never writes, or never refuses, shows nothing).
    expect(written).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(RUNS / 10);
  });
});
