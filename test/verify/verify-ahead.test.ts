/**
 * The verify endpoint sends a value's recording write at the same time as
 * its read once the process has seen that value valid (guess-limiter.ts,
 * keys/seen-lookups.ts). The read still decides every answer: a prediction
 * it contradicts is taken back exactly (verification/early-write.ts, store/early-use.ts), so
 * whatever changed in between, the usage item ends as the one-at-a-time
 * path would have left it.
 */
import { callerNetworkOf } from '../../lambda/domain/ip-allowlist';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { generateCreatedValue } from '../../lambda/domain/key-values';
import { dayOf } from '../../lambda/domain/usage-figures';
import { windowIndex } from '../../lambda/domain/rate-window';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { servicesWith, testServices, useTestServices } from '../support/services';
import { usageItem } from '../support/store';
import { authorizerWith } from '../../lambda/handlers/authorizer';
import { callAuthorizer, callVerify, randomSourceIp } from './helpers';

/** A client on the test engine that logs when each request starts (`>`) and when its answer arrives (`<`). */
function timelineClient(): { db: DynamoDBDocumentClient; events: string[]; failNext: Set<string>; destroy(): void } {
  const events: string[] = [];
  const failNext = new Set<string>();
  const client = DynamoDBDocumentClient.from(createDynamoClient(), { marshallOptions: { removeUndefinedValues: true } });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName).replace(/Command$/, '');
      events.push(`>${name}`);
      try {
        if (failNext.delete(name)) throw Object.assign(new Error(`injected failure of ${name}`), { name: 'InternalServerError', $fault: 'server' });
        return await next(args);
      } finally {
        events.push(`<${name}`);
      }
    },
    { step: 'initialize', name: 'timeline' },
  );
  return { db: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), events, failNext, destroy: () => client.destroy() };
}

/** The usage item as the API's figures see it: `prior_used_at` and `early_token` are bookkeeping of the write sent ahead. */
async function usageOf(keyId: string): Promise<Record<string, unknown>> {
  const item = { ...(await usageItem(keyId)) };
  delete item.prior_used_at;
  delete item.prior_valid_at;
  delete item.valid_before;
  delete item.early_token;
  return item;
}

describe('verify: the write sent with the read for a value seen valid', () => {
  let team: TestTeam;
  let timeline: ReturnType<typeof timelineClient>;
  beforeAll(async () => {
    team = await newTeam('live');
  });
  beforeEach(() => {
    timeline = timelineClient();
    // Leases off: every verification is its own write, as for a key at a low rate.
    useTestServices({ db: timeline.db, usageLeases: { enabled: false } });
  });
  afterEach(() => {
    useTestServices({});
    timeline.destroy();
    restoreSystemClock();
  });

  it('the first verification in a process reads, then writes; the next ones send both at once', async () => {
    const created = await createKey(team, { rate_limit: 50 });
    const sourceIp = randomSourceIp();
    timeline.events.length = 0;
    const first = await callVerify({ key: created.key }, { sourceIp });
    const firstEvents = timeline.events.splice(0);
    const second = await callVerify({ key: created.key }, { sourceIp });
    const secondEvents = timeline.events.splice(0);

    expect([first.body.code, second.body.code]).toEqual(['VALID', 'VALID']);
    expect(firstEvents).toEqual(['>BatchGetItem', '<BatchGetItem', '>UpdateItem', '<UpdateItem']);
    // Both requests are out before either answers: the verification waits for one round trip.
    expect(secondEvents.slice(0, 2).sort()).toEqual(['>BatchGetItem', '>UpdateItem']);
    expect(secondEvents).toHaveLength(4);
    expect([first.body.ratelimit.remaining, second.body.ratelimit.remaining]).toEqual([49, 48]);
    const usage = await usageOf(created.id);
    expect(usage.total_requests).toBe(2);
  });

  /** Verifies once (the process now predicts the value), records the usage, changes the key, verifies again. */
  async function afterChange(change: (created: { id: string; key: string }) => Promise<void>, options: { rate_limit?: number } = {}) {
    const created = await createKey(team, { rate_limit: options.rate_limit ?? 50 });
    const sourceIp = randomSourceIp();
    expect((await callVerify({ key: created.key }, { sourceIp })).body.code).toBe('VALID');
    const before = await usageOf(created.id);
    await change(created);
    timeline.events.length = 0;
    const answer = await callVerify({ key: created.key }, { sourceIp });
    const events = timeline.events.splice(0);
    return { created, before, answer, events, after: await usageOf(created.id), sourceIp };
  }

  it.each([
    ['disabled', { is_active: false }, 'INACTIVE'],
    ['restricted to other addresses', { ip_whitelist: ['192.0.2.0/24'] }, 'IP_NOT_ALLOWED'],
    ['given other scopes (the request asks for none, still valid)', { scopes: ['enc.tiles:read'] }, 'VALID'],
  ])('a key %s since: the read decides, the early write is taken back', async (_label, change, code) => {
    const { before, answer, events, after } = await afterChange(async (created) => {
      expectStatus(await call('update-api-key', { key: team.key, body: { key_id: created.id, ...change } }), 200);
    });
    expect(answer.body.code).toBe(code);
    if (code === 'VALID') {
      // Same usage item, same limit, same counter: the prediction holds, nothing to take back.
      expect(events.filter((e) => e.startsWith('>'))).toHaveLength(2);
      expect(after.total_requests).toBe(Number(before.total_requests) + 1);
      return;
    }
    // The write went out with the read, then one more write took it back.
    expect(events.filter((e) => e === '>UpdateItem')).toHaveLength(2);
    expect(after).toEqual(before);
  });

  it('a key deleted since: NOT_FOUND, and nothing recorded', async () => {
    const { before, answer, after } = await afterChange(async (created) => {
      expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: created.id, confirm_deletion: true } }), 200);
    });
    expect(answer.body.code).toBe('NOT_FOUND');
    expect(after).toEqual(before);
  });

  it('a rate limit lowered since: answered under the new limit, the use counted once and no slot taken', async () => {
    const { before, answer, after } = await afterChange(
      async (key) => {
        expectStatus(await call('update-api-key', { key: team.key, body: { key_id: key.id, rate_limit: 1 } }), 200);
      },
      { rate_limit: 50 },
    );
    expect(answer.body.code).toBe('RATE_LIMITED');
    expect(answer.body.ratelimit.limit).toBe(1);
    const window = String(windowIndex(new Date()));
    expect({ total: after.total_requests, window: (after.windows as Record<string, number>)[window] }).toEqual({
      total: Number(before.total_requests) + 1,
      window: (before.windows as Record<string, number>)[window],
    });
  });

  it('an old value after a roll: counted once, in its transition counter', async () => {
    const { before, answer, after, sourceIp } = await afterChange(async (created) => {
      expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, grace_period_days: 1 } }), 200);
    });
    expect(answer.body.code).toBe('VALID');
    expect(after.total_requests).toBe(Number(before.total_requests) + 1);
    // The old value's last use rides the same write (a use-driven grace's idle end, docs/verification.md "Grace modes").
    // So do its hour's count and its caller's network (docs/verification.md "Who still sends the old value").
    const last = (after.transitions as { g2_old_last: number }).g2_old_last;
    expect(after.transitions).toEqual({
      ...(before.transitions as object),
      g2_old: 1,
      g2_old_last: last,
      [`g2_old_h${Math.floor(last / 3_600_000)}`]: 1,
      [`g2_old_src:${callerNetworkOf(sourceIp)}`]: 1,
      [`g2_old_srcat:${callerNetworkOf(sourceIp)}`]: last,
    });
    expect(Math.abs((after.transitions as { g2_old_last: number }).g2_old_last - Date.now())).toBeLessThan(60_000);
    const day = dayOf(new Date());
    expect((after.daily as Record<string, number>)[day]).toBe((before.daily as Record<string, number>)[day] + 1);
  });

  it('a source over its guess limit since: 429, and the valid value it presented records nothing', async () => {
    const previous = process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
    process.env.VERIFY_GUESS_LIMIT_PER_MINUTE = '3';
    try {
      // Mid-minute, so the guesses and the verification share one guess window.
      installManualClock(Math.ceil((Date.now() + 1000) / 60_000) * 60_000 + 15_000);
      const created = await createKey(team);
      const sourceIp = randomSourceIp();
      expect((await callVerify({ key: created.key }, { sourceIp })).body.code).toBe('VALID');
      const before = await usageOf(created.id);
      for (let i = 0; i < 3; i++) {
        expect((await callVerify({ key: generateCreatedValue('sk', 'live', team.teamId) }, { sourceIp })).body.code).toBe('NOT_FOUND');
      }
      timeline.events.length = 0;
      const answer = await callVerify({ key: created.key }, { sourceIp });
      expect(answer.status).toBe(429);
      expect(timeline.events.filter((e) => e === '>UpdateItem')).toHaveLength(2);
      expect(await usageOf(created.id)).toEqual(before);
      // The process now knows the source is over its limit this minute: no write goes ahead any more.
      timeline.events.length = 0;
      expect((await callVerify({ key: created.key }, { sourceIp })).status).toBe(429);
      expect(timeline.events).toEqual(['>BatchGetItem', '<BatchGetItem']);
    } finally {
      if (previous === undefined) delete process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
      else process.env.VERIFY_GUESS_LIMIT_PER_MINUTE = previous;
    }
  });

  it('a read that fails after the write went out: the request fails and the use is taken back', async () => {
    const created = await createKey(team);
    const sourceIp = randomSourceIp();
    expect((await callVerify({ key: created.key }, { sourceIp })).body.code).toBe('VALID');
    const before = await usageOf(created.id);
    timeline.failNext.add('BatchGetItem');
    const answer = await callVerify({ key: created.key }, { sourceIp });
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(await usageOf(created.id)).toEqual(before);
    expect((await callVerify({ key: created.key }, { sourceIp })).body.code).toBe('VALID');
    expect((await usageOf(created.id)).total_requests).toBe(Number(before.total_requests) + 1);
  });

  it('a use taken back after a later one: the counts go back, last_used_at stays the later use', async () => {
    const created = await createKey(team);
    const usage = testServices().usage;
    const before = await usageOf(created.id);
    const at = new Date();
    const early = usage.recordUseAhead({ keyId: created.id, at, rateLimit: 50 });
    if (!early) throw new Error('the use was not sent ahead');
    await early.recorded;
    const later = new Date(at.getTime() + 5);
    expect((await usage.recordUse({ keyId: created.id, at: later, rateLimit: 50 })).admitted).toBe(true);
    await early.takeBack();
    const after = await usageOf(created.id);
    const window = String(windowIndex(at));
    expect({
      total: after.total_requests,
      window: (after.windows as Record<string, number>)[window],
      last: after.last_used_at,
    }).toEqual({ total: Number(before.total_requests) + 1, window: 1, last: later.toISOString() });
  });

  it('a use taken back after another process recorded one in the same millisecond: that use keeps last_used_at', async () => {
    // Prepare: two processes (two sets of services) on one table; the second records a use at the very same instant.
    const created = await createKey(team);
    const first = testServices().usage;
    const second = servicesWith({ usageLeases: { enabled: false } }).usage;
    const before = await usageOf(created.id);
    const at = new Date();

    // Act
    const early = first.recordUseAhead({ keyId: created.id, at, rateLimit: 50 });
    if (!early) throw new Error('the use was not sent ahead');
    await early.recorded;
    expect((await second.recordUse({ keyId: created.id, at, rateLimit: 50 })).admitted).toBe(true);
    await early.takeBack();
    await early.takeBack();

    // Assess: one use counted (the second process's), its last_used_at kept, not the one before the early write
    const after = await usageOf(created.id);
    expect({ total: after.total_requests, last: after.last_used_at }).toEqual({ total: Number(before.total_requests) + 1, last: at.toISOString() });
    expect((await usageItem(created.id))?.early_token).toBeUndefined();
  });

  it('with leases on, a key at a low rate still sends its write with the read', async () => {
    useTestServices({ db: timeline.db });
    const clock = installManualClock();
    const created = await createKey(team);
    const sourceIp = randomSourceIp();
    expect((await callVerify({ key: created.key }, { sourceIp })).body.code).toBe('VALID');
    clock.set(clock.now().getTime() + 3000);
    timeline.events.length = 0;
    expect((await callVerify({ key: created.key }, { sourceIp })).body.code).toBe('VALID');
    expect(timeline.events.slice(0, 2).sort()).toEqual(['>BatchGetItem', '>UpdateItem']);
  });

  describe('the Lambda authorizer', () => {
    const authorizer = authorizerWith(() => [], testServices);
    const authorize = (value: string, sourceIp: string) => callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${value}` }, sourceIp });

    it('a value seen before: the value, its use and its team go out at once; the same policy', async () => {
      const created = await createKey(team);
      const sourceIp = randomSourceIp();
      timeline.events.length = 0;
      const first = await authorize(created.key, sourceIp);
      const firstEvents = timeline.events.splice(0);
      const second = await authorize(created.key, sourceIp);
      const secondEvents = timeline.events.splice(0);

      expect(firstEvents).toEqual(['>GetItem', '<GetItem', '>UpdateItem', '<UpdateItem', '>GetItem', '<GetItem']);
      expect(secondEvents.slice(0, 3).sort()).toEqual(['>GetItem', '>GetItem', '>UpdateItem']);
      expect(secondEvents).toHaveLength(6);
      expect(second.result?.policyDocument).toEqual(first.result?.policyDocument);
      expect(second.result?.usageIdentifierKey).toEqual(first.result?.usageIdentifierKey);
      expect([first.result?.context?.ratelimit_remaining, second.result?.context?.ratelimit_remaining]).toEqual([
        Number(first.result?.context?.ratelimit_limit) - 1,
        Number(first.result?.context?.ratelimit_limit) - 2,
      ]);
      expect((await usageOf(created.id)).total_requests).toBe(2);
    });

    it('a key disabled since: Unauthorized, and the early write taken back', async () => {
      const created = await createKey(team);
      const sourceIp = randomSourceIp();
      expect((await authorize(created.key, sourceIp)).result).toBeDefined();
      const before = await usageOf(created.id);
      expectStatus(await call('update-api-key', { key: team.key, body: { key_id: created.id, is_active: false } }), 200);
      timeline.events.length = 0;
      const answer = await authorize(created.key, sourceIp);
      expect(answer.thrown).toBe('Unauthorized');
      expect(timeline.events.filter((e) => e === '>UpdateItem')).toHaveLength(2);
      expect(await usageOf(created.id)).toEqual(before);
    });
  });
});
