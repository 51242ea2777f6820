/**
 * Usage plans on `npm start`, as issue 13 states them, with a day's quota
 * of 5 instead of 8 (three fewer seconds of waiting for the bucket):
 * USAGE_PLANS='{"default":{"rateLimit":1,"burstLimit":3,"quota":{"limit":5,"period":"DAY"}}}'
 * a burst of 10 concurrent management calls from one team gets exactly 3
 * through and 7 × 429 THROTTLED; after the bucket refills, calls past 5 in
 * the day get 429 QUOTA_EXCEEDED; a second team is unaffected throughout;
 * the quota survives a restart.
 */
import { randomUUID } from 'node:crypto';
import { requestTo } from '../support/http';
import { bootstrap, npmStart, tempDataDir } from '../support/local-runtime';

const USAGE_PLANS = '{"default":{"rateLimit":1,"burstLimit":3,"quota":{"limit":5,"period":"DAY"}}}';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('usage plans on npm start', () => {
  const dataDirOf = tempDataDir('apikeys-plans-');

  it('throttles a burst to the bucket, stops a team at its quota, leaves the other team alone, and keeps the quota across a restart', async () => {
    const dataDir = dataDirOf();
    // Prepare: two teams on the default plan
    const env = { USAGE_PLANS };
    const [teamA, teamB] = [randomUUID(), randomUUID()];
    // Bootstrapped through the running runtime's engine (no engine of their own to start).
    let running = await npmStart(dataDir, env);
    const a = bootstrap(dataDir, teamA, [], env);
    const b = bootstrap(dataDir, teamB, [], env);
    const list = (key: string, team: string) =>
      requestTo(running.baseUrl, 'GET', `/functions/v1/list-api-keys?team_id=${team}&limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    const codeOf = (answer: { status: number; body: unknown }) => (answer.status === 200 ? 200 : (answer.body as { error: { code: string } }).error.code);

    try {
      // Act 1: a burst of 10 from team A, then one from team B
      const burst = await Promise.all(Array.from({ length: 10 }, () => list(a.key, teamA)));
      const bDuringBurst = await list(b.key, teamB);

      // Assess 1
      const codes = burst.map(codeOf);
      expect(codes.filter((code) => code === 200)).toHaveLength(3);
      expect(codes.filter((code) => code === 'THROTTLED')).toHaveLength(7);
      const throttled = burst.find((answer) => answer.status === 429);
      expect(throttled?.headers['retry-after']).toMatch(/^\d+$/);
      expect(codeOf(bDuringBurst)).toBe(200);

      // Act 2: one call a little over a second apart (the bucket refills 1/s): 2 more reach 5, the rest are over quota
      const paced: Array<number | string> = [];
      for (let i = 0; i < 4; i++) {
        await sleep(1_100);
        paced.push(codeOf(await list(a.key, teamA)));
      }

      // Assess 2
      expect(paced).toEqual([200, 200, 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED']);
      expect(codeOf(await list(b.key, teamB))).toBe(200);

      // Act 3: restart on the same DATA_DIR
      expect(await running.stop('SIGTERM')).toBe(0);
      running = await npmStart(dataDir, env);
      await sleep(1_100);
      const afterRestart = await list(a.key, teamA);

      // Assess 3: the day's quota is still spent; team B still passes
      expect(codeOf(afterRestart)).toBe('QUOTA_EXCEEDED');
      expect(Number(afterRestart.headers['retry-after'])).toBeGreaterThan(0);
      expect(codeOf(await list(b.key, teamB))).toBe(200);
    } finally {
      await running.stop('SIGTERM');
    }
  }, 120_000);
});
