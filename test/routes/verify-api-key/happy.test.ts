/**
 * POST /functions/v1/verify-api-key — keys that verify: the answer, the
 * usage it records, keys in transition, and the restrictions they pass.
 */
import { call, createKey, teamPerSuite } from '../../support/api';
import { expectStatus, installManualClock, keysOf, restoreSystemClock } from '../../support/keys';
import { transitionsOf, usageItem } from '../../support/store';
import { RATE_WINDOW_MS } from '../../../lambda/domain/rate-window';
import { dayOf } from '../../../lambda/domain/usage-figures';
import { callVerify } from '../../verify/helpers';
import { smokeTest } from '../../support/route-fixtures';

describe('POST /functions/v1/verify-api-key — valid keys', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  it('a valid secret key → 200 VALID with the key and its rate limit', async () => {
    // Prepare
    const created = await createKey(team, { name: 'Tiles backend', scopes: ['enc.tiles:read'], rate_limit: 50 });
    const clock = installManualClock();
    // Act
    const response = await callVerify({ key: created.key });
    // Assess
    expectStatus(response, 200);
    expect(keysOf(response.body)).toEqual(['code', 'key', 'ratelimit', 'valid']);
    expect(response.body).toEqual({
      valid: true,
      code: 'VALID',
      key: { id: created.id, team_id: team.teamId, type: 'sk', environment: 'live', scopes: ['enc.tiles:read'], value: 'current' },
      ratelimit: { limit: 50, remaining: 49, reset: (Math.floor(clock.now().getTime() / RATE_WINDOW_MS) + 1) * 3600 },
    });
    expect(response.headers['Content-Type']).toMatch(/^application\/json/);
    expect(response.headers['Cache-Control']).toBe('no-store');
    expect(response.headers.Vary).toBe('Origin');
    // The use counted against the key's limit: the IETF RateLimit headers, as on the management routes.
    expect(response.headers['RateLimit-Policy']).toBe('"hourly";q=50;w=3600');
    expect(response.headers.RateLimit).toMatch(/^"hourly";r=49;t=\d+$/);
  });

  it('a refusal that counts no use (an unknown value) carries no RateLimit headers', async () => {
    const response = await callVerify({ key: `${(await createKey(team)).key.slice(0, -6)}AAAAAA` });
    expect(response.body.code).toBe('NOT_FOUND');
    expect(response.headers.RateLimit).toBeUndefined();
  });

  it('the route scope is granted by the same scope or by a wildcard over it', async () => {
    const exact = await createKey(team, { scopes: ['enc.tiles:read'] });
    const wildcard = await createKey(team, { scopes: ['enc.*:read'] });
    for (const key of [exact.key, wildcard.key]) {
      const response = await callVerify({ key, scope: 'enc.tiles:read' });
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 200, code: 'VALID' });
    }
  });

  it('records the use: last_used_at, total_requests and the count of the day', async () => {
    const created = await createKey(team);
    const clock = installManualClock();
    await callVerify({ key: created.key });
    clock.advance(5_000);
    const second = await callVerify({ key: created.key });
    expectStatus(second, 200);
    const usage = await usageItem(created.id);
    expect(usage).toMatchObject({
      last_used_at: clock.now().toISOString(),
      total_requests: 2,
      daily: { [dayOf(clock.now())]: 2 },
    });
    expect(second.body.ratelimit.remaining).toBe(second.body.ratelimit.limit - 2);
  });

  it('a key in transition: both values verify, each counted apart, sharing one rate limit', async () => {
    // Prepare
    const created = await createKey(team, { rate_limit: 4 });
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, grace_period_days: 7 } });
    expectStatus(regenerated, 200);
    const oldValue = created.key;
    const newValue = regenerated.body.new_key as string;
    installManualClock();
    // Act
    const answers = [];
    for (const value of [oldValue, newValue, oldValue, newValue, oldValue]) answers.push(await callVerify({ key: value }));
    // Assess
    expect(answers.map((a) => a.body.code)).toEqual(['VALID', 'VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
    expect(answers.slice(0, 4).map((a) => a.body.ratelimit.remaining)).toEqual([3, 2, 1, 0]);
    expect(answers[0].body.key.id).toBe(answers[1].body.key.id);
    const usage = await usageItem(created.id);
    expect(transitionsOf(usage)).toEqual({ g2: { old: 3, new: 2 } });
    expect(usage?.total_requests).toBe(5);
  });

  it('a public key on an allowed origin: the answer is readable by that origin (CORS)', async () => {
    const created = await createKey(team, {
      type: 'pk',
      scopes: ['enc.tiles:read'],
      domains: ['https://maps.example.com', 'https://*.example.org'],
    });
    for (const [origin, referer] of [
      ['https://maps.example.com', 'https://maps.example.com/viewer?x=1'],
      ['https://a.example.org', undefined],
    ]) {
      const response = await callVerify({ key: created.key, scope: 'enc.tiles:read' }, { headers: { Origin: origin, Referer: referer } });
      expect({ status: response.status, code: response.body.code, origin }).toEqual({ status: 200, code: 'VALID', origin });
      expect(response.headers['Access-Control-Allow-Origin']).toBe(origin);
      expect(response.headers.Vary).toBe('Origin');
      expect(response.headers['Access-Control-Expose-Headers']).toMatch(/Retry-After/);
    }
  });

  it('a public key used from an allowed page without Origin (Referer only) verifies, without CORS headers', async () => {
    const created = await createKey(team, { type: 'pk', domains: ['https://maps.example.com'] });
    const response = await callVerify({ key: created.key }, { headers: { Referer: 'https://maps.example.com/page' } });
    expect(response.body.code).toBe('VALID');
    expect(response.headers['Access-Control-Allow-Origin']).toBeUndefined();
  });

  it('a public key without domains is not restricted by origin', async () => {
    const created = await createKey(team, { type: 'pk' });
    const response = await callVerify({ key: created.key }, { headers: { Origin: 'https://anywhere.example' } });
    expect(response.body.code).toBe('VALID');
    expect(response.headers['Access-Control-Allow-Origin']).toBe('https://anywhere.example');
  });

  it('ip_whitelist: addresses and CIDR blocks, IPv4 and IPv6', async () => {
    const created = await createKey(team, { ip_whitelist: ['198.51.100.7', '203.0.113.0/24', '2001:db8:1::/48'] });
    for (const sourceIp of ['198.51.100.7', '203.0.113.200', '2001:db8:1:ffff::1', '::ffff:203.0.113.5']) {
      const response = await callVerify({ key: created.key }, { sourceIp });
      expect({ sourceIp, code: response.body.code }).toEqual({ sourceIp, code: 'VALID' });
    }
  });

  it('the bootstrap value shape and the regenerated shape both verify', async () => {
    const boot = await callVerify({ key: team.key, scope: 'keys.manage' });
    expect(boot.body.code).toBe('VALID');
    const created = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, revoke_immediately: true } });
    expectStatus(regenerated, 200);
    const response = await callVerify({ key: regenerated.body.new_key });
    expect(response.body).toMatchObject({ valid: true, code: 'VALID', key: { id: created.id } });
  });
});

// Its fixture's valid request (lambda/routes/verify-api-key/fixture.ts) answers as documented.
smokeTest('verify-api-key');
