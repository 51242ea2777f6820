/**
 * Regenerate, happy paths: the response contract, the new value's shape,
 * configuration kept, both values valid under a grace period, immediate
 * revocation, and the regeneration audit record.
 */
import { MS_PER_DAY } from '../../../lambda/platform/clock';
import { actorOf, call, createKey, newTeam } from '../../support/api';
import { MANAGER_SCOPES, checkValue, expectStatus, keysOf, manualClockPerTest, storedKeyState } from '../../support/keys';
import { auditRecordsOf, keyItem, lookupItemOf } from '../../support/store';
import { smokeTest } from '../../support/route-fixtures';

const RESPONSE_FIELDS = ['key_info', 'migration_info', 'new_key', 'success'];
const KEY_INFO_FIELDS = ['environment', 'id', 'key_prefix', 'key_type', 'last_four', 'name', 'regenerated_at', 'transition_ends_at'];
const MIGRATION_INFO_FIELDS = ['both_keys_valid', 'grace_period_days', 'old_key_expires_at'];

/** Configuration a regeneration must keep, on the key item and in every value lookup. */
const CONFIG_FIELDS = [
  'name',
  'type',
  'environment',
  'team_id',
  'scopes',
  'domains',
  'ip_whitelist',
  'rate_limit',
  'expires_at',
  'is_active',
  'created_by',
] as const;

const clock = manualClockPerTest();

describe('regenerate: response', () => {
  it.each([
    ['sk', 'live'],
    ['pk', 'test'],
  ] as const)(
    'a %s %s key answers 200 with exactly the spec fields, a new value <type>_<env>_<key id>_<random> and the default 7-day grace',
    async (type, environment) => {
      // Prepare
      const team = await newTeam();
      const target = await createKey(team, { name: 'Billing backend', type, environment });
      const regeneratedAt = clock().now();
      const endsAt = new Date(regeneratedAt.getTime() + 7 * MS_PER_DAY).toISOString();

      // Act
      const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });

      // Assess
      expectStatus(response, 200);
      const body = response.body;
      expect(keysOf(body)).toEqual(RESPONSE_FIELDS);
      expect(keysOf(body.key_info)).toEqual(KEY_INFO_FIELDS);
      expect(keysOf(body.migration_info)).toEqual(MIGRATION_INFO_FIELDS);
      expect(body.new_key).toMatch(new RegExp(`^${type}_${environment}_${target.id}_[0-9A-Za-z]{28}$`));
      expect(body).toEqual({
        success: true,
        new_key: body.new_key,
        key_info: {
          id: target.id,
          name: 'Billing backend',
          key_type: type,
          environment,
          key_prefix: `${type}_${environment}_`,
          last_four: body.new_key.slice(-4),
          transition_ends_at: endsAt,
          regenerated_at: regeneratedAt.toISOString(),
        },
        migration_info: { old_key_expires_at: endsAt, grace_period_days: 7, both_keys_valid: true },
      });
      expect(body.new_key).not.toBe(target.key);
      expect(response.headers['Cache-Control']).toBe('no-store');
    },
  );

  it.each([1, 13, 30])('grace_period_days %i puts transition_ends_at exactly that many days after regenerated_at', async (days) => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: days } });

    // Assess
    expectStatus(response, 200);
    const expectedEnd = new Date(clock().now().getTime() + days * MS_PER_DAY).toISOString();
    expect({ key_info: response.body.key_info, migration_info: response.body.migration_info }).toMatchObject({
      key_info: { regenerated_at: clock().now().toISOString(), transition_ends_at: expectedEnd },
      migration_info: { old_key_expires_at: expectedEnd, grace_period_days: days, both_keys_valid: true },
    });
    expect(await keyItem(target.id)).toMatchObject({ transition_ends_at: expectedEnd, regenerated_at: clock().now().toISOString() });
  });
});

describe('regenerate: configuration kept', () => {
  it('name, scopes, domains, ip_whitelist, rate_limit, expires_at, description and is_active are unchanged on the key item', async () => {
    // Prepare
    const team = await newTeam();
    const expiresAt = new Date(clock().now().getTime() + 200 * MS_PER_DAY).toISOString();
    const configuration = {
      name: 'Storefront widget',
      scopes: ['enc.tiles:read', 'enc.layers:read'],
      domains: ['https://shop.example.com', 'https://*.example.org'],
      ip_whitelist: ['198.51.100.0/24'],
      rate_limit: 321,
      expires_at: expiresAt,
      description: 'Embedded in the storefront.',
    };
    const target = await createKey(team, { ...configuration, type: 'pk', environment: 'live' });
    const before = await keyItem(target.id);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 2 } });

    // Assess
    expectStatus(response, 200);
    const after = await keyItem(target.id);
    const newValue: string = response.body.new_key;
    // Exactly the value-related fields change; everything else is identical.
    expect(after).toEqual({
      ...before,
      generation: 2,
      current_hash: expect.any(String),
      key_prefix: newValue.slice(0, 20),
      last_four: newValue.slice(-4),
      regenerated_at: clock().now().toISOString(),
      transition_ends_at: new Date(clock().now().getTime() + 2 * MS_PER_DAY).toISOString(),
      previous_hash: before?.current_hash,
      previous_last_four: before?.last_four,
      previous_key_prefix: before?.key_prefix,
      updated_at: clock().now().toISOString(),
      revision: Number(before?.revision) + 1,
    });
    expect(after?.current_hash).not.toBe(before?.current_hash);
    expect(after).toMatchObject({ ...configuration, is_active: true });
  });

  it('the new value carries the same configuration as the old one: same lookup snapshot, same IP and origin rules', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, {
      type: 'pk',
      scopes: ['enc.tiles:read'],
      domains: ['https://shop.example.com'],
      ip_whitelist: ['198.51.100.0/24'],
      rate_limit: 50,
    });
    const oldLookup = await lookupItemOf(target.key);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 200);
    const newValue: string = response.body.new_key;
    const newLookup = await lookupItemOf(newValue);
    const snapshot = (item: Record<string, unknown> | undefined) => Object.fromEntries(CONFIG_FIELDS.map((field) => [field, item?.[field]]));
    expect(snapshot(newLookup)).toEqual(snapshot(oldLookup));
    const allowed = { sourceIp: '198.51.100.7', origin: 'https://shop.example.com', scope: 'enc.tiles:read' };
    expect(await checkValue(newValue, allowed)).toMatchObject({ valid: true, checked: { key: { id: target.id } } });
    expect(await checkValue(newValue, { ...allowed, sourceIp: '203.0.113.10' })).toMatchObject({ valid: false, code: 'IP_NOT_ALLOWED' });
    expect(await checkValue(newValue, { ...allowed, origin: 'https://evil.example.net' })).toMatchObject({
      valid: false,
      code: 'ORIGIN_NOT_ALLOWED',
    });
    expect(await checkValue(newValue, { ...allowed, scope: 'enc.layers:read' })).toMatchObject({
      valid: false,
      code: 'SCOPE_DENIED',
    });
  });
});

describe('regenerate: grace period', () => {
  it('both the old and the new value authenticate during the grace period, and the key has exactly two value lookups', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { scopes: MANAGER_SCOPES });

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 3 } });

    // Assess
    expectStatus(response, 200);
    const newValue: string = response.body.new_key;
    expect(await checkValue(target.key)).toMatchObject({ valid: true, checked: { key: { id: target.id, slot: 'previous' } } });
    expect(await checkValue(newValue)).toMatchObject({ valid: true, checked: { key: { id: target.id, slot: 'current' } } });
    // Both also work as callers of a management endpoint.
    expectStatus(await call('generate-api-key', { key: target.key, body: { name: 'By old', type: 'sk', environment: 'live', team_id: team.teamId } }), 201);
    expectStatus(await call('generate-api-key', { key: newValue, body: { name: 'By new', type: 'sk', environment: 'live', team_id: team.teamId } }), 201);
    const { lookups } = await storedKeyState(target.id);
    expect(lookups.map((lookup) => ({ slot: lookup.slot, generation: lookup.generation }))).toEqual(
      expect.arrayContaining([
        { slot: 'previous', generation: 1 },
        { slot: 'current', generation: 2 },
      ]),
    );
    expect(lookups).toHaveLength(2);
  });

  it('a key regenerates itself with its own value; the old value then stays valid under the grace period', async () => {
    // Prepare
    const team = await newTeam();
    const self = await createKey(team, { scopes: MANAGER_SCOPES });

    // Act
    const response = await call('regenerate-api-key', { key: self.key, body: { key_id: self.id } });

    // Assess
    expectStatus(response, 200);
    expect(await checkValue(self.key)).toMatchObject({ valid: true });
    expect(await checkValue(response.body.new_key)).toMatchObject({ valid: true });
  });
});

describe('regenerate: revoke_immediately', () => {
  it('the old value fails on the very next request; grace_period_days 0, both_keys_valid false, old_key_expires_at = regenerated_at', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { scopes: MANAGER_SCOPES });

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } });

    // Assess
    expectStatus(response, 200);
    const regeneratedAt = clock().now().toISOString();
    expect(keysOf(response.body)).toEqual(RESPONSE_FIELDS);
    expect(keysOf(response.body.key_info)).toEqual(KEY_INFO_FIELDS);
    expect(keysOf(response.body.migration_info)).toEqual(MIGRATION_INFO_FIELDS);
    expect(response.body.migration_info).toEqual({ old_key_expires_at: regeneratedAt, grace_period_days: 0, both_keys_valid: false });
    expect(response.body.key_info).toMatchObject({ regenerated_at: regeneratedAt, transition_ends_at: regeneratedAt });
    // Same instant, no clock movement: the old value is already refused.
    const next = await call('generate-api-key', { key: target.key, body: { name: 'x', type: 'sk', environment: 'live', team_id: team.teamId } });
    expectStatus(next, 401);
    expect(next.body.error.code).toBe('UNAUTHORIZED');
    expect(await checkValue(target.key)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    expect(await checkValue(response.body.new_key)).toMatchObject({ valid: true });
    const { key, lookups } = await storedKeyState(target.id);
    expect(lookups).toHaveLength(1);
    expect(key).not.toHaveProperty('previous_hash');
  });

  it('revoke_immediately: false behaves like the default grace period', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: false } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.migration_info).toMatchObject({ grace_period_days: 7, both_keys_valid: true });
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });

  it('after an immediate revocation no transition is live, so the key can be regenerated again at once', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } }), 200);

    // Act
    const again = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(again, 200);
    expect(await keyItem(target.id)).toMatchObject({ generation: 3 });
  });
});

describe('regenerate: audit record', () => {
  it('records actor user and key, time, grace period, transition end, old and new prefix and last four', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { name: 'Nightly export' });

    // Act
    const response = await call('regenerate-api-key', {
      key: team.key,
      body: { key_id: target.id, grace_period_days: 5 },
      sourceIp: '198.51.100.23',
      headers: { 'User-Agent': 'rotation-bot/3.1' },
    });

    // Assess
    expectStatus(response, 200);
    const newValue: string = response.body.new_key;
    const records = await auditRecordsOf(target.id);
    const regenerations = records.filter((record) => record.event_type === 'key.regenerated');
    expect(regenerations).toHaveLength(1);
    expect(regenerations[0]).toMatchObject({
      key_id: target.id,
      team_id: team.teamId,
      occurred_at: clock().now().toISOString(),
      actor: actorOf(team, { sourceIp: '198.51.100.23', userAgent: 'rotation-bot/3.1', requestId: response.headers['X-Request-Id'] }),
      key: { name: 'Nightly export', type: 'sk', environment: 'live' },
      generation: 2,
      grace_period_days: 5,
      revoke_immediately: false,
      transition_ends_at: response.body.key_info.transition_ends_at,
      old_value: { key_prefix: target.key.slice(0, 20), last_four: target.key.slice(-4) },
      new_value: { key_prefix: newValue.slice(0, 20), last_four: newValue.slice(-4) },
    });
  });

  it('an immediate revocation is recorded with grace period 0 and the transition ending at the regeneration time', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } });

    // Assess
    expectStatus(response, 200);
    const records = await auditRecordsOf(target.id);
    expect(records.filter((record) => record.event_type === 'key.regenerated')).toEqual([
      expect.objectContaining({
        grace_period_days: 0,
        revoke_immediately: true,
        occurred_at: clock().now().toISOString(),
        transition_ends_at: clock().now().toISOString(),
      }),
    ]);
  });
});

// Its fixture's valid request (lambda/routes/regenerate-api-key/fixture.ts) answers as documented.
smokeTest('regenerate-api-key');
