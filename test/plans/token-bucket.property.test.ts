/**
 * The local throttle keeps API Gateway's token-bucket semantics: over any
 * stretch of time it admits at most `burstLimit` + `rateLimit` × seconds,
 * a full bucket admits exactly `burstLimit` at once, and an idle bucket
 * refills to `burstLimit`, never beyond. Seeded, so a failure replays.
 */
import fc from 'fast-check';
import { TokenBucket } from '../../local/token-bucket';

const SEED = 20261123;
const limits = fc
  .record({ rateLimit: fc.integer({ min: 1, max: 50 }), burstLimit: fc.integer({ min: 1, max: 100 }) })
  .filter((l) => l.burstLimit >= l.rateLimit);
/** Request times in ms, non-decreasing. */
const arrivals = fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 300 }).map((gaps) => {
  let t = 0;
  return gaps.map((gap) => (t += gap));
});

describe('token bucket', () => {
  it('never admits more than burstLimit + rateLimit × elapsed seconds, over any window starting at a full bucket', () => {
    fc.assert(
      fc.property(limits, arrivals, (l, times) => {
        const bucket = new TokenBucket(l, 0);
        let admitted = 0;
        for (const t of times) {
          if (bucket.take(t).admitted) admitted += 1;
          expect(admitted).toBeLessThanOrEqual(l.burstLimit + Math.floor((l.rateLimit * t) / 1000));
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('admits exactly burstLimit requests arriving at once, then throttles with Retry-After ≥ 1', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 1, max: 50 }), (l, extra) => {
        const bucket = new TokenBucket(l, 1_000);
        const answers = Array.from({ length: l.burstLimit + extra }, () => bucket.take(1_000));
        expect(answers.filter((a) => a.admitted)).toHaveLength(l.burstLimit);
        for (const refused of answers.slice(l.burstLimit)) expect(refused).toEqual({ admitted: false, retryAfterSeconds: expect.any(Number) });
        expect(answers.slice(l.burstLimit).every((a) => !a.admitted && a.retryAfterSeconds >= 1)).toBe(true);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('refills at rateLimit per second up to burstLimit, never beyond', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 0, max: 100_000 }), (l, idleMs) => {
        const bucket = new TokenBucket(l, 0);
        while (bucket.take(0).admitted);
        let admitted = 0;
        while (bucket.take(idleMs).admitted) admitted += 1;
        expect(admitted).toBe(Math.min(l.burstLimit, Math.floor((l.rateLimit * idleMs) / 1000)));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('a Retry-After wait is enough: the next request after it is admitted', () => {
    fc.assert(
      fc.property(limits, (l) => {
        const bucket = new TokenBucket(l, 0);
        let answer = bucket.take(0);
        while (answer.admitted) answer = bucket.take(0);
        expect(bucket.take(answer.retryAfterSeconds * 1000).admitted).toBe(true);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});
