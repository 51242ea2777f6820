import { testClock } from '../../support/services';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { call, createKey, newTeam, type TestTeam, teamPerSuite } from '../../support/api';
import { teamKeyCount, usageItem } from '../../support/store';
import { documentClient } from '../../../lambda/composition/dynamo';
import { config } from '../../../lambda/composition/config';
import { hashKeyValue } from '../../../lambda/domain/key-values';
import { ManualClock, systemClock } from '../../../lambda/platform/clock';
import { VALUE_LOOKUP } from '../../../lambda/store/entities/value-lookup';

const MANAGER_SCOPES = ['keys.manage', 'enc.*:read'];

function body(team: TestTeam, overrides: Record<string, unknown> = {}) {
  return { name: 'Probe', type: 'sk', environment: 'live', team_id: team.teamId, ...overrides };
}

describe('POST /functions/v1/generate-api-key — authentication and authorization', () => {
  const team = teamPerSuite();
  afterEach(() => testClock.use(systemClock));

  describe('401: who is calling cannot be established', () => {
    it.each([
      ['no Authorization header', undefined],
      ['an empty header', ''],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['Bearer without a value', 'Bearer'],
      ['Bearer with two values', 'Bearer a b'],
      ['a value of the wrong shape', 'Bearer not-a-key'],
      ['a well-shaped value with a wrong checksum', 'Bearer svc_sk_live_1b4e28ba_aaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ])('%s → 401 with WWW-Authenticate', async (_label, authorization) => {
      const before = await teamKeyCount(team.teamId);
      const response = await call('generate-api-key', { headers: { Authorization: authorization }, body: body(team) });
      expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
      expect(response.headers['WWW-Authenticate']).toMatch(/^Bearer/);
      expect(await teamKeyCount(team.teamId)).toBe(before);
    });

    it('two Authorization headers, even the same valid key twice → 400 naming Authorization; nothing created, no use recorded', async () => {
      // Prepare
      const before = { keys: await teamKeyCount(team.teamId), usage: await usageItem(team.keyId) };

      // Act
      const response = await call('generate-api-key', { repeatedHeaders: { Authorization: [`Bearer ${team.key}`, `Bearer ${team.key}`] }, body: body(team) });

      // Assess
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'Authorization', issue: 'must be sent once' }] });
      expect({ keys: await teamKeyCount(team.teamId), usage: await usageItem(team.keyId) }).toEqual(before);
    });

    it('a valid-looking but unknown value → 401', async () => {
      const other = await newTeam('live');
      const value = other.key.slice(0, -10) + 'A'.repeat(4);
      const response = await call('generate-api-key', { key: value, body: body(team) });
      expect(response.status).toBe(401);
    });

    it('the scheme name is case-insensitive (RFC 6750)', async () => {
      const response = await call('generate-api-key', { headers: { Authorization: `bearer ${team.key}` }, body: body(team) });
      expect(response.status).toBe(201);
    });

    it('a deleted key → 401', async () => {
      const doomed = await createKey(team, { name: 'Doomed', scopes: MANAGER_SCOPES });
      const deleted = await call('delete-api-key', { key: team.key, body: { key_id: doomed.id, confirm_deletion: true } });
      expect(deleted.status).toBe(200);
      const response = await call('generate-api-key', { key: doomed.key, body: body(team) });
      expect(response.status).toBe(401);
      expect(response.body.error.message).toMatch(/invalid/i);
    });

    it('an expired key → 401 once the clock passes expires_at', async () => {
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const shortLived = await createKey(team, { name: 'Short', scopes: MANAGER_SCOPES, expires_at: expiresAt });
      expect((await call('generate-api-key', { key: shortLived.key, body: body(team) })).status).toBe(201);
      testClock.use(new ManualClock(Date.parse(expiresAt)));
      const response = await call('generate-api-key', { key: shortLived.key, body: body(team) });
      expect({ status: response.status, message: response.body.error.message }).toEqual({
        status: 401,
        message: 'The API key has expired.',
      });
    });

    it('an inactive key → 401', async () => {
      const paused = await createKey(team, { name: 'Paused', scopes: MANAGER_SCOPES });
      await documentClient().send(
        new UpdateCommand({
          TableName: config.keyTableName,
          Key: VALUE_LOOKUP.key(hashKeyValue(paused.key)),
          UpdateExpression: 'SET is_active = :false',
          ExpressionAttributeValues: { ':false': false },
        }),
      );
      const response = await call('generate-api-key', { key: paused.key, body: body(team) });
      expect({ status: response.status, message: response.body.error.message }).toEqual({
        status: 401,
        message: 'The API key is not active.',
      });
    });
  });

  describe('403: the caller may not do this', () => {
    it('a source IP outside the caller’s ip_whitelist (IPv4 and IPv6 CIDR)', async () => {
      const fenced = await createKey(team, {
        name: 'Fenced',
        scopes: MANAGER_SCOPES,
        ip_whitelist: ['10.0.0.0/8', '2001:db8::/32'],
      });
      const outcomes: Record<string, number> = {};
      for (const ip of ['10.20.30.40', '203.0.113.10', '2001:db8:1::9', '2001:db9::1', '::ffff:10.1.1.1']) {
        outcomes[ip] = (await call('generate-api-key', { key: fenced.key, sourceIp: ip, body: body(team) })).status;
      }
      expect(outcomes).toEqual({
        '10.20.30.40': 201,
        '203.0.113.10': 403,
        '2001:db8:1::9': 201,
        '2001:db9::1': 403,
        '::ffff:10.1.1.1': 201,
      });
    });

    it('a public (pk) caller, even from an allowed origin', async () => {
      const publicKey = await createKey(team, { name: 'Public', type: 'pk', domains: ['https://app.example.com'] });
      const response = await call('generate-api-key', {
        key: publicKey.key,
        headers: { Origin: 'https://app.example.com' },
        body: body(team),
      });
      expect({ status: response.status, code: response.body.error.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    });

    it('an sk caller without keys.manage', async () => {
      const reader = await createKey(team, { name: 'Reader', scopes: ['enc.*:read'] });
      const response = await call('generate-api-key', { key: reader.key, body: body(team) });
      expect(response.status).toBe(403);
      expect(response.body.error.message).toMatch(/keys\.manage/);
    });

    it('a test caller creating a live key', async () => {
      const testTeam = await newTeam('test');
      const response = await call('generate-api-key', { key: testTeam.key, body: body(testTeam, { environment: 'live' }) });
      expect(response.status).toBe(403);
      expect(await teamKeyCount(testTeam.teamId)).toBe(1);
    });

    it('a team_id other than the caller’s', async () => {
      const other = await newTeam('live');
      const response = await call('generate-api-key', { key: team.key, body: body(other) });
      expect(response.status).toBe(403);
      expect(await teamKeyCount(other.teamId)).toBe(1);
    });

    it.each([
      [['enc.tiles:write'], 'enc.tiles:write'],
      [['interact.identify:read'], 'interact.identify:read'],
      [['enc.tiles:read', 'admin.manage'], 'admin.manage'],
      [['enc.*:write'], 'enc.*:write'],
    ])('asking for scopes %j the caller lacks (names %s)', async (scopes, missing) => {
      const response = await call('generate-api-key', { key: team.key, body: body(team, { scopes }) });
      expect(response.status).toBe(403);
      expect(JSON.stringify(response.body.error.details)).toContain(missing);
    });

    it('a wildcard the caller holds covers the scopes it grants', async () => {
      const response = await call('generate-api-key', {
        key: team.key,
        body: body(team, { scopes: ['enc.tiles:read', 'enc.*:read', 'keys.manage'] }),
      });
      expect(response.status).toBe(201);
    });

    it('a key granted enc.tiles:read cannot pass on enc.*:read', async () => {
      const narrow = await createKey(team, { name: 'Narrow manager', scopes: ['keys.manage', 'enc.tiles:read'] });
      const response = await call('generate-api-key', { key: narrow.key, body: body(team, { scopes: ['enc.*:read'] }) });
      expect(response.status).toBe(403);
    });
  });

  describe('429: over the caller’s rate limit', () => {
    it('refuses the request past rate_limit with Retry-After and creates nothing', async () => {
      const limited = await createKey(team, { name: 'Limited', scopes: MANAGER_SCOPES, rate_limit: 2 });
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await call('generate-api-key', { key: limited.key, body: body(team) })).status);
      const before = await teamKeyCount(team.teamId);
      const refused = await call('generate-api-key', { key: limited.key, body: body(team) });
      expect(statuses).toEqual([201, 201]);
      expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
      expect(Number(refused.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      expect(await teamKeyCount(team.teamId)).toBe(before);
    });
  });
});
