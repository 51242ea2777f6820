/**
 * The per-key rate limit (rate_limit requests per hour): exact under
 * concurrency, the sliding-window estimate over two fixed windows, Retry-After,
 * and the management endpoints counting the calling key.
 */
import { testServices } from '../support/services';
import { call, createKey, type CallResult, teamPerSuite } from '../support/api';
import { expectStatus, installManualClock, MANAGER_SCOPES, restoreSystemClock, UNKNOWN_KEY_ID } from '../support/keys';
import { usageItem } from '../support/store';
import { RATE_WINDOW_MS, windowIndex } from '../../lambda/domain/rate-window';
import { callVerify } from './helpers';

const HOUR = RATE_WINDOW_MS;

/** Runs `total` calls with at most `inFlight` pending at once. */
async function runConcurrently(total: number, inFlight: number, act: () => Promise<CallResult>): Promise<CallResult[]> {
  const results: CallResult[] = [];
  let started = 0;
  let peak = 0;
  let pending = 0;
  async function worker(): Promise<void> {
    while (started < total) {
      started += 1;
      pending += 1;
      peak = Math.max(peak, pending);
      try {
        results.push(await act());
      } finally {
        pending -= 1;
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  expect(peak).toBe(inFlight);
  return results;
}

/** The start of an hour at least one minute ahead (a manual clock must not run behind the real one). */
function nextHourStart(): number {
  return (Math.floor((Date.now() + 60_000) / HOUR) + 1) * HOUR;
}

describe('per-key rate limit', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  describe('exactness: limit 100, 150 requests, 50 in flight at once', () => {
    it('verify endpoint: exactly 100 VALID and 50 RATE_LIMITED with Retry-After', async () => {
      // Prepare
      const created = await createKey(team, { rate_limit: 100 });
      const clock = installManualClock(nextHourStart() + 20 * 60_000);
      // Act
      const results = await runConcurrently(150, 50, () => callVerify({ key: created.key }));
      // Assess
      const valid = results.filter((r) => r.status === 200 && r.body.code === 'VALID');
      const limited = results.filter((r) => r.status === 200 && r.body.code === 'RATE_LIMITED');
      expect({ valid: valid.length, limited: limited.length }).toEqual({ valid: 100, limited: 50 });
      for (const response of limited) {
        expect(response.body).toEqual({ valid: false, code: 'RATE_LIMITED', ratelimit: expect.objectContaining({ limit: 100, remaining: 0 }) });
        expect(Number(response.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      }
      expect(valid.map((r) => r.body.ratelimit.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      // Every verification is a recorded use; only admitted ones hold a slot.
      const usage = await usageItem(created.id);
      expect(usage?.total_requests).toBe(150);
      expect(usage?.windows).toEqual({ [String(windowIndex(clock.now()))]: 100 });
    });

    it('management endpoint: exactly 100 pass and 50 get 429 with Retry-After, counting the calling key', async () => {
      // Prepare: a manager key limited to 100 requests per hour.
      const caller = await createKey(team, { name: 'Limited manager', scopes: MANAGER_SCOPES, rate_limit: 100 });
      installManualClock(nextHourStart() + 20 * 60_000);
      // Act: deletes of a key that does not exist (404 once admitted; nothing else is written).
      const results = await runConcurrently(150, 50, () =>
        call('delete-api-key', { key: caller.key, body: { key_id: UNKNOWN_KEY_ID, confirm_deletion: true } }),
      );
      // Assess
      const statuses = results.map((r) => r.status);
      expect({ passed: statuses.filter((s) => s === 404).length, limited: statuses.filter((s) => s === 429).length }).toEqual({
        passed: 100,
        limited: 50,
      });
      for (const response of results.filter((r) => r.status === 429)) {
        expect(response.body.error.code).toBe('RATE_LIMITED');
        expect(response.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
      }
      expect((await usageItem(caller.id))?.total_requests).toBe(150);
    });
  });

  describe('sliding window over two fixed windows', () => {
    it('the previous hour weighs by the part of it still inside the sliding hour; Retry-After says when', async () => {
      // Prepare: 10 requests at the start of hour h fill a limit of 10.
      const created = await createKey(team, { rate_limit: 10 });
      const h = nextHourStart();
      const clock = installManualClock(h + 1000);
      for (let i = 0; i < 10; i++) expect((await callVerify({ key: created.key })).body.code).toBe('VALID');
      expect((await callVerify({ key: created.key })).body.code).toBe('RATE_LIMITED');

      // Act: half-way through hour h+1 the estimate is 10 × 0.5 + current, so 5 more fit.
      clock.set(h + HOUR + HOUR / 2);
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await callVerify({ key: created.key }));

      // Assess
      expect(answers.map((a) => a.body.code)).toEqual(['VALID', 'VALID', 'VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
      expect(answers.slice(0, 5).map((a) => a.body.ratelimit.remaining)).toEqual([4, 3, 2, 1, 0]);
      // 10 × (1 − e) + 5 + 1 ≤ 10 from e = 0.6: six minutes from now.
      expect(answers[5].headers['Retry-After']).toBe('360');
      clock.advance(359_000);
      expect((await callVerify({ key: created.key })).body.code).toBe('RATE_LIMITED');
      clock.advance(1_000);
      expect((await callVerify({ key: created.key })).body.code).toBe('VALID');
    });

    it('a request the upper-bound condition lets through but the estimate refuses gives its slot back', async () => {
      const created = await createKey(team, { rate_limit: 10 });
      const h = nextHourStart();
      const clock = installManualClock(h + 1000);
      for (let i = 0; i < 10; i++) await callVerify({ key: created.key });
      clock.set(h + HOUR + HOUR / 2);
      for (let i = 0; i < 5; i++) expect((await callVerify({ key: created.key })).body.code).toBe('VALID');

      // A fresh process does not know the previous hour's count: its condition only bounds the window by 10.
      testServices().usage.endedWindows.clear();
      const response = await callVerify({ key: created.key });

      expect(response.body.code).toBe('RATE_LIMITED');
      expect(response.headers['Retry-After']).toBe('360');
      const usage = await usageItem(created.id);
      expect(usage?.windows).toEqual({ [String(windowIndex(clock.now()) - 1)]: 10, [String(windowIndex(clock.now()))]: 5 });
      expect(usage?.total_requests).toBe(10 + 5 + 1);
    });

    it('windows older than the previous hour are removed (inline, or by one tidy write after a day idle)', async () => {
      const created = await createKey(team, { rate_limit: 10 });
      const h = nextHourStart();
      const clock = installManualClock(h + 1000);
      await callVerify({ key: created.key });
      clock.set(h + 3 * HOUR + 1000);
      await callVerify({ key: created.key });
      expect(Object.keys((await usageItem(created.id))?.windows ?? {})).toEqual([String(windowIndex(clock.now()))]);
      clock.set(h + 40 * HOUR + 1000);
      const response = await callVerify({ key: created.key });
      expect(response.body.ratelimit.remaining).toBe(9);
      expect(Object.keys((await usageItem(created.id))?.windows ?? {})).toEqual([String(windowIndex(clock.now()))]);
    });
  });

  it('the two values of a key in transition share one limit', async () => {
    const created = await createKey(team, { rate_limit: 3 });
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id } });
    expectStatus(regenerated, 200);
    installManualClock();
    const codes = [];
    for (const value of [created.key, regenerated.body.new_key, created.key, regenerated.body.new_key]) {
      codes.push((await callVerify({ key: value })).body.code);
    }
    expect(codes).toEqual(['VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
  });
});
