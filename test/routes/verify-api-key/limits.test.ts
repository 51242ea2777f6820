/**
 * Named limits and credits (docs/limits.md), admitted in one step: the
 * hourly limit, every applicable named limit and the credits are checked
 * and consumed all or nothing, exactly under concurrency.
 */
import { call, createKey, teamPerSuite } from '../../support/api';
import { directKeyWrite, expectStatus, installManualClock, restoreSystemClock } from '../../support/keys';
import { callVerify } from '../../verify/helpers';
import { usageItem } from '../../support/store';
import { createKeyRecord } from '../../../lambda/use-cases/create-key';
import { testServices } from '../../support/services';
import { recordIssuedValue } from '../../support/issued-values';

describe('POST /functions/v1/verify-api-key — named limits and credits', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  async function newIdentity(externalId: string, extra: Record<string, unknown>): Promise<string> {
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: externalId, ...extra } });
    expectStatus(made, 201);
    return made.body.data.id as string;
  }

  const hourlyCount = async (keyId: string): Promise<number> =>
    Object.values(((await usageItem(keyId))?.windows ?? {}) as Record<string, number>).reduce((sum, n) => sum + n, 0);

  it('100 concurrent verifications over two keys of one identity with 30 credits: exactly 30 VALID, 70 USAGE_EXCEEDED, and the hourly figures grow by 30', async () => {
    // Prepare
    const identityId = await newIdentity('shared-budget', { credits: { remaining: 30 } });
    const web = await createKey(team, { identity_id: identityId, name: 'web' });
    const mobile = await createKey(team, { identity_id: identityId, name: 'mobile' });

    // Act
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => callVerify({ key: (i % 2 === 0 ? web : mobile).key })));

    // Assess
    const codes = answers.map((answer) => answer.body.code as string);
    expect(codes.filter((code) => code === 'VALID')).toHaveLength(30);
    expect(codes.filter((code) => code === 'USAGE_EXCEEDED')).toHaveLength(70);
    expect((await hourlyCount(web.id)) + (await hourlyCount(mobile.id))).toBe(30);
    const identity = await call('get-identity', { key: team.key, query: { identity_id: identityId } });
    expect(identity.body.data.credits).toEqual({ remaining: 0, refill: null });
    const refused = answers.find((answer) => answer.body.code === 'USAGE_EXCEEDED');
    expect(refused?.body).toEqual({ valid: false, code: 'USAGE_EXCEEDED', ratelimit: expect.any(Object), credits: { remaining: 0 } });
  });

  it('a key limit of 5 per minute with 100 credits under 20 concurrent calls: 5 VALID and 95 credits left', async () => {
    // Prepare
    const key = await createKey(team, { limits: [{ name: 'burst', limit: 5, window_seconds: 60 }], credits: { remaining: 100 } });

    // Act
    const answers = await Promise.all(Array.from({ length: 20 }, () => callVerify({ key: key.key })));

    // Assess
    expect(answers.filter((answer) => answer.body.code === 'VALID')).toHaveLength(5);
    expect(answers.filter((answer) => answer.body.code === 'RATE_LIMITED')).toHaveLength(15);
    const read = await call('get-api-key', { key: team.key, query: { key_id: key.id } });
    expect(read.body.data.credits).toEqual({ remaining: 95, refill: null });
    const listed = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, limit: '100' } });
    expect(listed.body.data.find((item: { id: string }) => item.id === key.id).credits).toEqual({ remaining: 95, refill: null });
    expect(read.body.data.limits).toEqual([{ name: 'burst', limit: 5, window_seconds: 60 }]);
    const limited = answers.find((answer) => answer.body.code === 'RATE_LIMITED');
    expect(limited?.body.limits).toEqual([{ name: 'burst', owner: 'key', limit: 5, remaining: 0, reset: expect.any(Number) }]);
    expect(Number(limited?.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    // The hourly figures are the hourly limit's own: it did not refuse (1,000 an hour, 5 used).
    expect(limited?.body.ratelimit.remaining).toBe(995);
    expect(limited?.headers.RateLimit).toMatch(/^"hourly";r=995;/);
    expect(limited?.headers['RateLimit-Policy']).toMatch(/"key\.burst";q=5;w=60$/);
  });

  it('a limit bound to enc.tiles:read refuses the 4th tiles call while interact.identify:read stays VALID', async () => {
    // Prepare: a key of two areas. A manager grants only scopes it holds (the bootstrap key holds enc.*:read), so the
    // key is written as the operator's bootstrap command writes keys, with the limit given at create as the route does.
    const { spec, actor } = directKeyWrite(team.teamId, team.userId, {
      name: 'Tiles and identify',
      scopes: ['enc.tiles:read', 'interact.identify:read'],
      rate_limit: 1000,
    });
    const key = await createKeyRecord(testServices(), spec, actor, 'bootstrap', undefined, {
      limits: [{ name: 'tiles', limit: 3, window_seconds: 3600, scope: 'enc.tiles:read' }],
    });
    recordIssuedValue(key.key);

    // Act
    const tiles = [];
    for (let i = 0; i < 4; i++) tiles.push(await callVerify({ key: key.key, scope: 'enc.tiles:read' }));
    const identify = await callVerify({ key: key.key, scope: 'interact.identify:read' });

    // Assess
    expect(tiles.map((answer) => answer.body.code)).toEqual(['VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
    expect(tiles[3]?.body.limits).toEqual([{ name: 'tiles', owner: 'key', limit: 3, remaining: 0, reset: expect.any(Number) }]);
    expect(identify.body.code).toBe('VALID');
    // A verification the limit does not count does not list it.
    expect(identify.body.limits).toBeUndefined();
  });

  it('cost 10 on 25 credits: 2 VALID, then USAGE_EXCEEDED with 5 left', async () => {
    // Prepare
    const key = await createKey(team, { credits: { remaining: 25 } });

    // Act
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await callVerify({ key: key.key, cost: 10 }));

    // Assess
    expect(answers.map((answer) => [answer.body.code, answer.body.credits])).toEqual([
      ['VALID', { remaining: 15 }],
      ['VALID', { remaining: 5 }],
      ['USAGE_EXCEEDED', { remaining: 5 }],
    ]);
  });

  it('a refused named limit consumes no credits, and refused credits consume no limit slot', async () => {
    // Prepare
    const key = await createKey(team, { limits: [{ name: 'two', limit: 2, window_seconds: 3600 }], credits: { remaining: 1 } });

    // Act
    const first = await callVerify({ key: key.key });
    const second = await callVerify({ key: key.key });

    // Assess: the second had room in the limit but no credit: the limit still has one slot
    expect(first.body.code).toBe('VALID');
    expect(second.body.code).toBe('USAGE_EXCEEDED');
    expect(second.body.limits).toEqual([{ name: 'two', owner: 'key', limit: 2, remaining: 1, reset: expect.any(Number) }]);
  });

  it('a key’s and its identity’s limits of the same name are two limits, each applied', async () => {
    // Prepare
    const identityId = await newIdentity('same-name', { limits: [{ name: 'minute', limit: 3, window_seconds: 60 }] });
    const key = await createKey(team, { identity_id: identityId, limits: [{ name: 'minute', limit: 2, window_seconds: 60 }] });
    const other = await createKey(team, { identity_id: identityId });

    // Act
    const a = [await callVerify({ key: key.key }), await callVerify({ key: key.key }), await callVerify({ key: key.key })];
    const b = [await callVerify({ key: other.key }), await callVerify({ key: other.key })];

    // Assess: the key's own limit stops its 3rd call; the identity's stops the other key's 2nd (3 in all)
    expect(a.map((answer) => answer.body.code)).toEqual(['VALID', 'VALID', 'RATE_LIMITED']);
    expect(b.map((answer) => answer.body.code)).toEqual(['VALID', 'RATE_LIMITED']);
    expect(a[1]?.body.limits).toEqual([
      { name: 'minute', owner: 'key', limit: 2, remaining: 0, reset: expect.any(Number) },
      { name: 'minute', owner: 'identity', limit: 3, remaining: 1, reset: expect.any(Number) },
    ]);
  });

  it('a monthly refill is applied once, by the first verification of the period, however the period is reached', async () => {
    // Prepare
    const clock = installManualClock(Date.parse('2026-11-30T12:00:00Z'));
    const key = await createKey(team, { credits: { remaining: 2, refill: { interval: 'monthly', amount: 5, day_of_month: 1 } } });
    await callVerify({ key: key.key });
    await callVerify({ key: key.key });

    // Act
    const exhausted = await callVerify({ key: key.key });
    clock.advance(24 * 3600_000);
    const refilled = [];
    for (let i = 0; i < 6; i++) refilled.push(await callVerify({ key: key.key }));

    // Assess
    expect(exhausted.body.code).toBe('USAGE_EXCEEDED');
    expect(refilled.map((answer) => answer.body.credits.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(refilled[5]?.body.code).toBe('USAGE_EXCEEDED');
  });

  it('a refill reached by three calls at once is applied once: each write is conditional on the period it replaces', async () => {
    // Prepare: the meter last seen in November, one credit left
    const clock = installManualClock(Date.parse('2026-11-30T23:59:00Z'));
    const key = await createKey(team, { credits: { remaining: 1, refill: { interval: 'monthly', amount: 10 } } });
    await callVerify({ key: key.key });
    clock.advance(120_000);

    // Act: three first calls of December at once, then a read
    const answers = await Promise.all([1, 2, 3].map(() => callVerify({ key: key.key })));
    const read = await call('get-api-key', { key: team.key, query: { key_id: key.id } });

    // Assess: one refill to 10, three spent
    expect(answers.map((answer) => answer.body.code)).toEqual(['VALID', 'VALID', 'VALID']);
    expect(answers.map((answer) => answer.body.credits.remaining).sort()).toEqual([7, 8, 9]);
    expect(read.body.data.credits.remaining).toBe(7);
  });

  it('a key with neither limits nor credits is answered as before: no limits, no credits', async () => {
    // Prepare
    const key = await createKey(team);

    // Act
    const answer = await callVerify({ key: key.key, cost: 5 });

    // Assess
    expect(Object.keys(answer.body).sort()).toEqual(['code', 'key', 'ratelimit', 'valid']);
  });
});

describe('update-api-key and update-identity — limits and credits edited', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  it('a key’s limit lowered applies to the next verification; credits set start a new balance; null removes them', async () => {
    // Prepare
    const key = await createKey(team, { limits: [{ name: 'hour', limit: 10, window_seconds: 3600 }], credits: { remaining: 3 } });
    expect((await callVerify({ key: key.key })).body.code).toBe('VALID');

    // Act
    const lowered = await call('update-api-key', { key: team.key, body: { key_id: key.id, limits: [{ name: 'hour', limit: 1, window_seconds: 3600 }] } });
    const refused = await callVerify({ key: key.key });
    const raised = await call('update-api-key', { key: team.key, body: { key_id: key.id, limits: [], credits: { remaining: 50 } } });
    const afterRaise = await callVerify({ key: key.key });
    const unlimited = await call('update-api-key', { key: team.key, body: { key_id: key.id, credits: null } });
    const plain = await callVerify({ key: key.key });

    // Assess
    expectStatus(lowered, 200);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(raised.body.data.credits).toEqual({ remaining: 50, refill: null });
    expect(raised.body.data.limits).toBeUndefined();
    expect(afterRaise.body).toMatchObject({ code: 'VALID', credits: { remaining: 49 } });
    expect(unlimited.body.data.credits).toBeUndefined();
    expect(Object.keys(plain.body).sort()).toEqual(['code', 'key', 'ratelimit', 'valid']);
    const records = await call('list-audit-events', { key: team.key, query: { key_id: key.id } });
    const updated = (records.body.data as { event_type: string; changes?: Record<string, unknown> }[]).filter((r) => r.event_type === 'key.updated');
    expect(updated.map((r) => Object.keys(r.changes ?? {}).sort())).toEqual(expect.arrayContaining([['limits'], ['credits', 'limits'], ['credits']]));
  });

  it('credits with a refill set by an update start in the current period: no refill over them until the next', async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-28T10:00:00Z'));
    const key = await createKey(team);
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'refilled-by-update' } });

    // Act
    const keyUpdated = await call('update-api-key', {
      key: team.key,
      body: { key_id: key.id, credits: { remaining: 1, refill: { interval: 'monthly', amount: 100, day_of_month: 31 } } },
    });
    const identityUpdated = await call('update-identity', {
      key: team.key,
      body: { identity_id: made.body.data.id, credits: { remaining: 2, refill: { interval: 'daily', amount: 10 } } },
    });
    const answers = [await callVerify({ key: key.key }), await callVerify({ key: key.key })];

    // Assess
    expect(keyUpdated.body.data.credits).toEqual({ remaining: 1, refill: { interval: 'monthly', amount: 100, day_of_month: 31 } });
    expect(identityUpdated.body.data.credits).toEqual({ remaining: 2, refill: { interval: 'daily', amount: 10 } });
    expect(answers.map((answer) => answer.body.code)).toEqual(['VALID', 'USAGE_EXCEEDED']);
  });

  it('an identity’s credits set by update-identity are shared by its keys at once', async () => {
    // Prepare
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'topped-up' } });
    const identityId = made.body.data.id as string;
    const key = await createKey(team, { identity_id: identityId });
    expect((await callVerify({ key: key.key })).body.credits).toBeUndefined();

    // Act
    const updated = await call('update-identity', { key: team.key, body: { identity_id: identityId, credits: { remaining: 1 } } });
    const first = await callVerify({ key: key.key });
    const second = await callVerify({ key: key.key });

    // Assess
    expect(updated.body.data.credits).toEqual({ remaining: 1, refill: null });
    expect([first.body.code, second.body.code]).toEqual(['VALID', 'USAGE_EXCEEDED']);
  });
});
