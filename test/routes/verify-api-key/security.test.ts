/**
 * POST /functions/v1/verify-api-key — security: who may read the answer
 * (CORS and its preflight), the per-source limit against guessing, and the
 * value staying out of logs and responses.
 */
import { createKey, newTeam, type TestTeam } from '../../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../../support/keys';
import { generateCreatedValue } from '../../../lambda/domain/key-values';
import { callVerify, randomSourceIp } from '../../verify/helpers';

const GUESS_LIMIT = 5;

describe('POST /functions/v1/verify-api-key — security', () => {
  let team: TestTeam;
  let pk: { id: string; key: string };
  beforeAll(async () => {
    team = await newTeam('live');
    pk = await createKey(team, {
      type: 'pk',
      scopes: ['enc.tiles:read'],
      domains: ['https://maps.example.com', 'https://*.example.org'],
    });
  });
  afterEach(() => restoreSystemClock());

  describe('CORS on the answer', () => {
    it('echoes exactly the allowed Origin of a public key, with Vary: Origin', async () => {
      const response = await callVerify({ key: pk.key }, { headers: { Origin: 'https://tiles.example.org' } });
      expect(response.body.code).toBe('VALID');
      expect(response.headers['Access-Control-Allow-Origin']).toBe('https://tiles.example.org');
      expect(response.headers.Vary).toBe('Origin');
      expect(response.headers['Access-Control-Allow-Credentials']).toBeUndefined();
    });

    it.each([
      ['a disallowed origin', 'https://evil.example'],
      ['a look-alike', 'https://maps.example.com.evil.com'],
      ['an opaque origin', 'null'],
    ])('no Access-Control-Allow-Origin for %s (the browser keeps the answer from the page)', async (_label, origin) => {
      const response = await callVerify({ key: pk.key }, { headers: { Origin: origin } });
      expect(response.body.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(response.headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect(response.headers.Vary).toBe('Origin');
    });

    it('never for a secret key, even a valid one: secret keys do not belong in browsers', async () => {
      const sk = await createKey(team);
      const response = await callVerify({ key: sk.key }, { headers: { Origin: 'https://maps.example.com' } });
      expect(response.body.code).toBe('VALID');
      expect(response.headers['Access-Control-Allow-Origin']).toBeUndefined();
    });

    it('an allowed page may read a refusal that concerns it (scope, rate limit)', async () => {
      const response = await callVerify({ key: pk.key, scope: 'interact.identify:read' }, { headers: { Origin: 'https://maps.example.com' } });
      expect(response.body).toEqual({ valid: false, code: 'SCOPE_DENIED' });
      expect(response.headers['Access-Control-Allow-Origin']).toBe('https://maps.example.com');
    });

    it('no CORS headers on errors (400) or for unknown keys', async () => {
      const bad = await callVerify({ key: pk.key, extra: 1 }, { headers: { Origin: 'https://maps.example.com' } });
      expectStatus(bad, 400);
      expect(bad.headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect(bad.headers.Vary).toBe('Origin');
      const unknown = await callVerify({ key: 'pk_live_nothing' }, { headers: { Origin: 'https://maps.example.com' } });
      expect(unknown.headers['Access-Control-Allow-Origin']).toBeUndefined();
    });
  });

  describe('preflight (OPTIONS carries no key)', () => {
    const preflight = (headers: Record<string, string | undefined>) =>
      callVerify(undefined, { method: 'OPTIONS', headers: { 'Content-Type': undefined, ...headers } });

    it('a POST with JSON from any http(s) origin may be sent: 204 with the CORS grant, no body', async () => {
      const response = await preflight({
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      });
      expect(response.status).toBe(204);
      expect(response.headers).toMatchObject({
        'Access-Control-Allow-Origin': 'https://evil.example',
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization',
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      });
      expect(response.body).toBe('');
    });

    it.each([
      ['another method', { Origin: 'https://maps.example.com', 'Access-Control-Request-Method': 'DELETE' }],
      [
        'another header',
        { Origin: 'https://maps.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-secret' },
      ],
      ['no Origin', { 'Access-Control-Request-Method': 'POST' }],
      ['an opaque origin', { Origin: 'null', 'Access-Control-Request-Method': 'POST' }],
    ])('%s → 204 without a grant', async (_label, headers) => {
      const response = await preflight(headers);
      expect(response.status).toBe(204);
      expect(response.headers['Access-Control-Allow-Origin']).toBeUndefined();
    });
  });

  describe('per-source limit against guessing', () => {
    const previous = process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
    beforeAll(() => {
      process.env.VERIFY_GUESS_LIMIT_PER_MINUTE = String(GUESS_LIMIT);
    });
    afterAll(() => {
      if (previous === undefined) delete process.env.VERIFY_GUESS_LIMIT_PER_MINUTE;
      else process.env.VERIFY_GUESS_LIMIT_PER_MINUTE = previous;
    });

    const guess = () => generateCreatedValue('sk', 'live', team.teamId);

    it('past the limit of unknown values per minute, every answer to that source is 429 with Retry-After, valid keys included', async () => {
      // Prepare
      const clock = installManualClock(Math.ceil((Date.now() + 1000) / 60_000) * 60_000 + 15_000);
      const sourceIp = randomSourceIp();
      const sk = await createKey(team);
      // Act
      const answers = [];
      for (let i = 0; i < GUESS_LIMIT; i++) answers.push(await callVerify({ key: guess() }, { sourceIp }));
      const blocked = await callVerify({ key: guess() }, { sourceIp });
      const blockedValid = await callVerify({ key: sk.key }, { sourceIp });
      const elsewhere = await callVerify({ key: sk.key }, { sourceIp: randomSourceIp() });
      // Assess
      expect(answers.map((a) => `${a.status} ${a.body.code}`)).toEqual(Array(GUESS_LIMIT).fill('200 NOT_FOUND'));
      for (const response of [blocked, blockedValid]) {
        expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
        expect(response.headers['Retry-After']).toBe('45');
      }
      expect(elsewhere.body.code).toBe('VALID');
      // The next minute starts afresh.
      clock.advance(45_000);
      expect((await callVerify({ key: guess() }, { sourceIp })).body.code).toBe('NOT_FOUND');
    });

    it('exact under concurrency: 20 guesses at once from one source → 5 answered, 15 refused', async () => {
      installManualClock();
      const sourceIp = randomSourceIp();
      const answers = await Promise.all(Array.from({ length: 20 }, () => callVerify({ key: guess() }, { sourceIp })));
      expect(answers.filter((a) => a.status === 200).length).toBe(GUESS_LIMIT);
      expect(answers.filter((a) => a.status === 429).length).toBe(20 - GUESS_LIMIT);
    });

    it('valid keys, keys refused for their own reasons and malformed values do not count', async () => {
      installManualClock();
      const sourceIp = randomSourceIp();
      const sk = await createKey(team, { scopes: ['enc.tiles:read'] });
      for (let i = 0; i < GUESS_LIMIT + 2; i++) {
        await callVerify({ key: sk.key }, { sourceIp });
        await callVerify({ key: sk.key, scope: 'keys.manage' }, { sourceIp });
        await callVerify({ key: 'garbage' }, { sourceIp });
      }
      expect((await callVerify({ key: guess() }, { sourceIp })).status).toBe(200);
    });

    it('IPv6 sources are counted per /64', async () => {
      installManualClock();
      const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
      for (let i = 0; i < GUESS_LIMIT; i++) await callVerify({ key: guess() }, { sourceIp: `${prefix}::${i + 1}` });
      expect((await callVerify({ key: guess() }, { sourceIp: `${prefix}:ffff::9` })).status).toBe(429);
      expect((await callVerify({ key: guess() }, { sourceIp: `${prefix.slice(0, -1)}2::1` })).status).toBe(200);
    });
  });

  describe('the presented value stays secret', () => {
    it('is never logged, and never echoed in an answer or an error', async () => {
      const sk = await createKey(team);
      const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((name) => jest.spyOn(console, name).mockImplementation(() => undefined));
      try {
        const answers = [
          await callVerify({ key: sk.key }),
          await callVerify({ key: sk.key, scope: 'keys.manage' }),
          await callVerify({ key: sk.key, unexpected: true }),
          await callVerify({ key: sk.key }, { headers: { 'Content-Type': 'text/plain' } }),
          await callVerify(undefined, { rawBody: `{"key": "${sk.key}"` }),
        ];
        for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(sk.key.slice(-20));
        const logged = spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(' ')));
        for (const line of logged) expect(line).not.toContain(sk.key.slice(-20));
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    });
  });
});
