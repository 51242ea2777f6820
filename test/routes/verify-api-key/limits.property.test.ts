/**
 * A property over random interleavings (fast-check, seeded so a failure
 * replays): rounds of concurrent verifications of random cost, with
 * adjustments, refills (the clock moved to the next day), limit edits and
 * lease flushes between them, never admit more than the named limit or the
 * balance allows, refuse only what they must, and end with the sequential
 * result: the stored counter and balance are exactly what the admitted calls
 * leave. Against DynamoDB Local, through the verify endpoint.
 */
import fc from 'fast-check';
import { call, createKey, teamPerSuite } from '../../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../../support/keys';
import { callVerify } from '../../verify/helpers';
import { testServices } from '../../support/services';
import { loadCount } from '../../support/load';

const SEED = 20261128;
/** Interleavings tried: 6 in `npm test`, 24 in CI's long run (`LOAD_SCALE=1`). */
const RUNS = loadCount(24);
const DAY = 24 * 3600_000;
/** A 30-day window that began just before the run's start: every round stays in it. */
const WINDOW_SECONDS = 2_592_000;
const START = Math.floor(Date.parse('2026-12-01T00:00:00Z') / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000 + 60_000;
const REFILL = 6;

type Between = { kind: 'add'; n: number } | { kind: 'set'; n: number } | { kind: 'next-day' } | { kind: 'limit'; n: number } | { kind: 'flush' };

const round = fc.record({
  costs: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
  between: fc.oneof(
    fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 1, max: 5 }) }),
    fc.record({ kind: fc.constant('set' as const), n: fc.integer({ min: 0, max: 4 }) }),
    fc.constant({ kind: 'next-day' as const }),
    fc.record({ kind: fc.constant('limit' as const), n: fc.integer({ min: 1, max: 20 }) }),
    fc.constant({ kind: 'flush' as const }),
  ) as fc.Arbitrary<Between>,
});

describe('named limits and credits — random interleavings', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  it('admit exactly what the limit and the balance allow, and end with the sequential result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 3, max: 12 }), fc.array(round, { minLength: 2, maxLength: 5 }), async (startLimit, rounds) => {
        const clock = installManualClock(START);
        const key = await createKey(team, {
          limits: [{ name: 'window', limit: startLimit, window_seconds: WINDOW_SECONDS }],
          credits: { remaining: REFILL, refill: { interval: 'daily', amount: REFILL } },
        });
        // The model: the limit, its count, what is left of the day's allowance, the grants.
        let limit = startLimit;
        let counted = 0;
        let allowance = REFILL;
        let grants = 0;
        for (const { costs, between } of rounds) {
          const answers = await Promise.all(costs.map((cost) => callVerify({ key: key.key, cost })));
          const codes = answers.map((answer) => answer.body.code as string);
          const admitted = costs.filter((_, i) => codes[i] === 'VALID');
          const spent = admitted.reduce((sum, cost) => sum + cost, 0);
          const balanceBefore = allowance + grants;
          // Never more than the limit or the balance allows.
          expect(counted + admitted.length).toBeLessThanOrEqual(Math.max(counted, limit));
          expect(spent).toBeLessThanOrEqual(balanceBefore);
          counted += admitted.length;
          grants -= Math.max(0, spent - allowance);
          allowance = Math.max(0, allowance - spent);
          // Refused only when it must be: the limit full, or the balance below the call's cost.
          costs.forEach((cost, i) => {
            if (codes[i] === 'RATE_LIMITED') expect(counted).toBeGreaterThanOrEqual(limit);
            if (codes[i] === 'USAGE_EXCEEDED') expect(allowance + grants).toBeLessThan(cost);
          });
          expect(codes.every((code) => ['VALID', 'RATE_LIMITED', 'USAGE_EXCEEDED'].includes(code))).toBe(true);
          // The sequential result: the stored balance is exactly the model's.
          const read = await call('get-api-key', { key: team.key, query: { key_id: key.id } });
          expect(read.body.data.credits.remaining).toBe(allowance + grants);

          if (between.kind === 'add') {
            expectStatus(await call('adjust-credits', { key: team.key, body: { key_id: key.id, add: between.n, reason: 'property' } }), 200);
            grants += between.n;
          } else if (between.kind === 'set') {
            expectStatus(await call('adjust-credits', { key: team.key, body: { key_id: key.id, set: between.n, reason: 'property' } }), 200);
            allowance = between.n;
          } else if (between.kind === 'next-day') {
            clock.advance(DAY);
            allowance = REFILL;
          } else if (between.kind === 'limit') {
            const body = { key_id: key.id, limits: [{ name: 'window', limit: between.n, window_seconds: WINDOW_SECONDS }] };
            expectStatus(await call('update-api-key', { key: team.key, body }), 200);
            limit = between.n;
          } else {
            // Lease flushes: the hourly leases' pending uses, and what the metered leases hold given back.
            await testServices().usage.flushPending();
            await testServices().meters?.releaseAll();
          }
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
