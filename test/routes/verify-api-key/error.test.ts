/**
 * POST /functions/v1/verify-api-key — every reason a key does not verify is
 * a definitive 200 answer with its code; a malformed body is 400 and writes
 * nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { call, createKey, teamPerSuite } from '../../support/api';
import { expectStatus, installManualClock, keysOf, restoreSystemClock } from '../../support/keys';
import { usageItem } from '../../support/store';
import { documentClient } from '../../../lambda/composition/dynamo';
import { config } from '../../../lambda/composition/config';
import { generateCreatedValue, hashKeyValue } from '../../../lambda/domain/key-values';
import { MS_PER_DAY } from '../../../lambda/platform/clock';
import { callVerify, countDynamoRequests } from '../../verify/helpers';
import { VALUE_LOOKUP } from '../../../lambda/store/entities/value-lookup';

describe('POST /functions/v1/verify-api-key — keys that do not verify', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  /** The answer for `value`, asserting the invalid shape: no key, no rate limit, no CORS. */
  async function expectInvalid(body: Record<string, unknown>, code: string, options: Parameters<typeof callVerify>[1] = {}): Promise<void> {
    const response = await callVerify(body, options);
    expectStatus(response, 200);
    expect(response.body).toEqual({ valid: false, code });
    expect(response.headers['Access-Control-Allow-Origin']).toBeUndefined();
  }

  describe('NOT_FOUND', () => {
    it.each([
      ['a value of no known shape', 'not-a-key'],
      ['a created shape with a wrong checksum', 'svc_sk_live_1b4e28ba_aaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
      ['a regenerated shape with a wrong checksum', 'sk_live_01ARZ3NDEKTSV4RRFFQ69G5FAV_aaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
      ['an overlong value', `svc_sk_live_${'a'.repeat(300)}`],
    ])('%s → NOT_FOUND without touching DynamoDB', async (_label, value) => {
      const counter = countDynamoRequests();
      try {
        await expectInvalid({ key: value }, 'NOT_FOUND');
        expect(counter.requests).toEqual([]);
      } finally {
        counter.restore();
      }
    });

    it('a well-formed value (valid checksum) that was never issued → NOT_FOUND, after one read', async () => {
      const neverIssued = generateCreatedValue('sk', 'live', team.teamId);
      const counter = countDynamoRequests();
      try {
        await expectInvalid({ key: neverIssued }, 'NOT_FOUND');
        // The lookup (with the per-source counter), then the counter's increment.
        expect(counter.requests.map((r) => r.command)).toEqual(['BatchGetItemCommand', 'UpdateItemCommand']);
      } finally {
        counter.restore();
      }
    });

    it('a deleted key → NOT_FOUND, and its usage no longer grows', async () => {
      const created = await createKey(team);
      await callVerify({ key: created.key });
      const deleted = await call('delete-api-key', { key: team.key, body: { key_id: created.id, confirm_deletion: true } });
      expectStatus(deleted, 200);
      await expectInvalid({ key: created.key }, 'NOT_FOUND');
      expect((await usageItem(created.id))?.total_requests).toBe(1);
    });

    it('the old value of a regeneration with revoke_immediately → NOT_FOUND', async () => {
      const created = await createKey(team);
      const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, revoke_immediately: true } });
      expectStatus(regenerated, 200);
      await expectInvalid({ key: created.key }, 'NOT_FOUND');
    });
  });

  it('REVOKED: the old value once its transition has ended, whether or not clean-up ran', async () => {
    const created = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, grace_period_days: 1 } });
    expectStatus(regenerated, 200);
    const clock = installManualClock();
    expect((await callVerify({ key: created.key })).body.code).toBe('VALID');
    clock.advance(MS_PER_DAY + 1000);
    await expectInvalid({ key: created.key }, 'REVOKED');
    expect((await callVerify({ key: regenerated.body.new_key })).body.code).toBe('VALID');
  });

  it('EXPIRED: a key past its expires_at', async () => {
    const created = await createKey(team, { expires_at: new Date(Date.now() + 60 * 60 * 1000).toISOString() });
    const clock = installManualClock();
    expect((await callVerify({ key: created.key })).body.code).toBe('VALID');
    clock.advance(60 * 60 * 1000 + 1000);
    await expectInvalid({ key: created.key }, 'EXPIRED');
  });

  it('INACTIVE: a key whose is_active is false', async () => {
    const created = await createKey(team);
    await documentClient().send(
      new UpdateCommand({
        TableName: config.keyTableName,
        Key: VALUE_LOOKUP.key(hashKeyValue(created.key, config.pepper)),
        UpdateExpression: 'SET is_active = :false',
        ExpressionAttributeValues: { ':false': false },
      }),
    );
    await expectInvalid({ key: created.key }, 'INACTIVE');
  });

  it('IP_NOT_ALLOWED: a source outside ip_whitelist, or none at all', async () => {
    const created = await createKey(team, { ip_whitelist: ['203.0.113.0/24', '2001:db8::/32'] });
    for (const sourceIp of ['203.0.114.1', '2001:db9::1', '::ffff:198.51.100.1', '']) {
      await expectInvalid({ key: created.key }, 'IP_NOT_ALLOWED', { sourceIp });
    }
  });

  describe('ORIGIN_NOT_ALLOWED (public keys with domains)', () => {
    let pk: { key: string };
    beforeAll(async () => {
      pk = await createKey(team, { type: 'pk', domains: ['https://maps.example.com', 'https://*.example.org'] });
    });

    it.each([
      ['another origin', { Origin: 'https://evil.example' }],
      ['the right host over http', { Origin: 'http://maps.example.com' }],
      ['the right host on another port', { Origin: 'https://maps.example.com:8443' }],
      ['the apex of a wildcard entry', { Origin: 'https://example.org' }],
      ['a look-alike ending in an allowed name', { Origin: 'https://a.example.org.evil.com' }],
      ['two labels under a wildcard', { Origin: 'https://a.b.example.org' }],
      ['an opaque origin', { Origin: 'null' }],
      ['a foreign Referer even with a good Origin', { Origin: 'https://maps.example.com', Referer: 'https://evil.example/x' }],
      ['neither Origin nor Referer', {}],
    ])('%s', async (_label, headers) => {
      await expectInvalid({ key: pk.key }, 'ORIGIN_NOT_ALLOWED', { headers });
    });
  });

  it.each([
    ['keys.manage does not cover a resource scope', ['keys.manage'], 'enc.tiles:read'],
    ['a resource scope does not cover the wildcard', ['enc.tiles:read'], 'enc.*:read'],
    ['a wildcard does not cross areas', ['enc.*:read'], 'interact.identify:read'],
    ['a wildcard does not cross actions', ['enc.*:read'], 'enc.tiles:write'],
    ['a resource scope does not cover keys.manage', ['enc.*:read'], 'keys.manage'],
  ])('SCOPE_DENIED: %s', async (_label, scopes, scope) => {
    const created = await createKey(team, { scopes });
    await expectInvalid({ key: created.key, scope }, 'SCOPE_DENIED');
    expect((await usageItem(created.id))?.total_requests).toBe(0);
  });

  it('RATE_LIMITED: over the key’s rate_limit → 200, valid false, Retry-After in seconds', async () => {
    const created = await createKey(team, { rate_limit: 2 });
    installManualClock();
    await callVerify({ key: created.key });
    await callVerify({ key: created.key });
    const response = await callVerify({ key: created.key });
    expectStatus(response, 200);
    expect(keysOf(response.body)).toEqual(['code', 'ratelimit', 'valid']);
    expect(response.body).toMatchObject({ valid: false, code: 'RATE_LIMITED', ratelimit: { limit: 2, remaining: 0 } });
    expect(response.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
    // The window estimate admits again within two hours at the latest (exact figures: rate-limit.test.ts).
    expect(Number(response.headers['Retry-After'])).toBeLessThanOrEqual(7200);
  });

  describe('400: a malformed body, and nothing written', () => {
    it.each([
      ['invalid JSON', '{"key": ', 'INVALID_JSON'],
      ['an empty body', '', 'VALIDATION_FAILED'],
      ['an array', '[]', 'VALIDATION_FAILED'],
      ['no key', '{}', 'VALIDATION_FAILED'],
      ['an empty key', '{"key": ""}', 'VALIDATION_FAILED'],
      ['a key that is not a string', '{"key": 42}', 'VALIDATION_FAILED'],
      ['an unknown field', '{"key": "svc_sk_live_x", "team_id": "x"}', 'VALIDATION_FAILED'],
      ['a scope that is not a scope', '{"key": "svc_sk_live_x", "scope": "everything"}', 'VALIDATION_FAILED'],
      ['a scope that is not a string', '{"key": "svc_sk_live_x", "scope": ["enc.tiles:read"]}', 'VALIDATION_FAILED'],
      ['a negative cost', '{"key": "svc_sk_live_x", "cost": -1}', 'VALIDATION_FAILED'],
      ['a fractional cost', '{"key": "svc_sk_live_x", "cost": 1.5}', 'VALIDATION_FAILED'],
      ['a cost over 1000', '{"key": "svc_sk_live_x", "cost": 1001}', 'VALIDATION_FAILED'],
      ['a cost that is not a number', '{"key": "svc_sk_live_x", "cost": "10"}', 'VALIDATION_FAILED'],
    ])('%s → 400 %s', async (_label, rawBody, code) => {
      const counter = countDynamoRequests();
      try {
        const response = await callVerify(undefined, { rawBody });
        expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 400, code });
        expect(keysOf(response.body.error)).toEqual(['code', 'details', 'message', 'request_id']);
        expect(counter.requests).toEqual([]);
      } finally {
        counter.restore();
      }
    });

    it('every problem is listed', async () => {
      const response = await callVerify({ key: 1, scope: 'x', extra: true });
      expectStatus(response, 400);
      expect(response.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'key', 'scope']);
    });

    it('a body that is not JSON → 415', async () => {
      const response = await callVerify(undefined, { rawBody: 'key=abc', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      expect({ status: response.status, code: response.body.error.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    });
  });
});
