import { createHash } from 'node:crypto';
import { call, createKey, newTeam, teamPerSuite } from '../../support/api';
import { auditRecordsOf, keyItem, lookupItemOf, usageItem } from '../../support/store';
import { parseKeyValue } from '../../../lambda/domain/key-values';
import { smokeTest } from '../../support/route-fixtures';

const API_KEY_FIELDS = [
  'created_at',
  'created_by',
  'description',
  'domains',
  'environment',
  'expires_at',
  'id',
  'ip_whitelist',
  'is_active',
  'key',
  'key_prefix',
  'last_four',
  'last_used_at',
  'name',
  'on_leak',
  'rate_limit',
  'scopes',
  'team_id',
  'type',
].sort();

describe('POST /functions/v1/generate-api-key — happy path', () => {
  const team = teamPerSuite();

  it('on_leak: disable for sk and notify for pk unless sent; sent, it is kept, shown and audited', async () => {
    // Prepare
    const base = { environment: 'live', team_id: team.teamId };
    // Act
    const sk = await call('generate-api-key', { key: team.key, body: { ...base, name: 'sk default', type: 'sk' } });
    const pk = await call('generate-api-key', { key: team.key, body: { ...base, name: 'pk default', type: 'pk' } });
    const notifying = await call('generate-api-key', { key: team.key, body: { ...base, name: 'sk notify', type: 'sk', on_leak: 'notify' } });
    const wrong = await call('generate-api-key', { key: team.key, body: { ...base, name: 'bad', type: 'sk', on_leak: 'ignore' } });
    // Assess
    expect([sk.body.data.on_leak, pk.body.data.on_leak, notifying.body.data.on_leak]).toEqual(['disable', 'notify', 'notify']);
    expect((await keyItem(notifying.body.data.id))?.on_leak).toBe('notify');
    expect((await call('get-api-key', { key: team.key, query: { key_id: pk.body.data.id } })).body.data.on_leak).toBe('notify');
    expect((await auditRecordsOf(notifying.body.data.id))[0]).toMatchObject({ key: { on_leak: 'notify' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toEqual([{ field: 'on_leak', issue: 'must be "disable" or "notify"' }]);
  });

  it('creates a pk key with a wildcard domain and answers 201 with every field of the resource', async () => {
    // Prepare
    const before = Date.now();
    // Act
    const response = await call('generate-api-key', {
      key: team.key,
      body: {
        name: '  Web widget  ',
        type: 'pk',
        environment: 'live',
        team_id: team.teamId,
        domains: ['https://*.example.com'],
        description: 'Browser maps',
      },
    });
    // Assess
    expect(response.status).toBe(201);
    const { data, meta } = response.body;
    expect(Object.keys(response.body).sort()).toEqual(['data', 'meta']);
    expect(Object.keys(data).sort()).toEqual(API_KEY_FIELDS);
    expect(Object.keys(meta).sort()).toEqual(['request_id', 'timestamp']);
    expect(data.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(data.name).toBe('Web widget');
    expect(data.type).toBe('pk');
    expect(data.environment).toBe('live');
    expect(data.team_id).toBe(team.teamId);
    expect(data.scopes).toEqual(['enc.tiles:read']);
    expect(data.domains).toEqual(['https://*.example.com']);
    expect(data.ip_whitelist).toEqual([]);
    expect(data.rate_limit).toBe(1000);
    expect(data.is_active).toBe(true);
    expect(data.expires_at).toBeNull();
    expect(data.last_used_at).toBeNull();
    expect(data.created_by).toBe(team.userId);
    expect(data.description).toBe('Browser maps');
    expect(Date.parse(data.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(data.key).toMatch(new RegExp(`^svc_pk_live_${team.teamId.replace(/-/g, '').slice(0, 8)}_[0-9A-Za-z]{28}$`));
    expect(parseKeyValue(data.key)).toEqual({ shape: 'created', type: 'pk', environment: 'live' });
    expect(data.key_prefix).toBe(data.key.slice(0, 20));
    expect(data.key_prefix).toHaveLength(20);
    expect(data.last_four).toBe(data.key.slice(-4));
    expect(typeof meta.request_id).toBe('string');
    expect(Number.isNaN(Date.parse(meta.timestamp))).toBe(false);
    expect(response.headers['Cache-Control']).toBe('no-store');
  });

  it('creates an sk key with a normalised ip_whitelist, explicit scopes, rate limit and expiry', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const response = await call('generate-api-key', {
      key: team.key,
      body: {
        name: 'Backend',
        type: 'sk',
        environment: 'live',
        team_id: team.teamId,
        scopes: ['enc.tiles:read', 'enc.tiles:read', 'enc.identify:read'],
        ip_whitelist: ['10.1.2.3/8', '2001:DB8::/32', '198.51.100.7'],
        rate_limit: 250,
        expires_at: expiresAt,
      },
    });
    expect(response.status).toBe(201);
    const { data } = response.body;
    expect(data.scopes).toEqual(['enc.tiles:read', 'enc.identify:read']);
    expect(data.ip_whitelist).toEqual(['10.0.0.0/8', '2001:db8::/32', '198.51.100.7']);
    expect(data.rate_limit).toBe(250);
    expect(data.expires_at).toBe(expiresAt);
    expect(data.domains).toEqual([]);
    expect(data.description).toBe('');
  });

  it('stores only a hash of the value, an empty usage item and one key.created audit record', async () => {
    const created = await createKey(team, { name: 'Stored', scopes: ['enc.tiles:read'] });
    const item = await keyItem(created.id);
    const lookup = await lookupItemOf(created.key);
    const usage = await usageItem(created.id);
    const audit = await auditRecordsOf(created.id);

    expect(item?.current_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(JSON.stringify(item)).not.toContain(created.key);
    expect(lookup).toMatchObject({ entity: 'value', key_id: created.id, slot: 'current', team_id: team.teamId });
    expect(usage).toMatchObject({ entity: 'usage', total_requests: 0, last_used_at: null });
    expect(usage?.ttl).toBeUndefined();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      event_type: 'key.created',
      key_id: created.id,
      team_id: team.teamId,
      via: 'api',
      key: { name: 'Stored', type: 'sk', environment: 'live', key_prefix: created.key.slice(0, 20) },
      actor: { user_id: team.userId, key_id: team.keyId, source_ip: '203.0.113.10', user_agent: 'jest-fixture/1.0' },
    });
    expect(typeof (audit[0].actor as { request_id: string }).request_id).toBe('string');
    expect(JSON.stringify(audit[0])).not.toContain(created.key);
    expect(JSON.stringify(audit[0])).not.toContain(item?.current_hash as string);
  });

  it('a key value pasted into the User-Agent is not in the audit record; a long User-Agent is kept to 512 characters', async () => {
    // Act
    const pasted = await call('generate-api-key', {
      key: team.key,
      headers: { 'User-Agent': `deploy-script/2 (key ${team.key})` },
      body: { name: 'UA pasted', type: 'sk', environment: 'live', team_id: team.teamId },
    });
    const long = await call('generate-api-key', {
      key: team.key,
      headers: { 'User-Agent': 'u'.repeat(8000) },
      body: { name: 'UA long', type: 'sk', environment: 'live', team_id: team.teamId },
    });

    // Assess
    const [pastedRecord] = await auditRecordsOf(pasted.body.data.id);
    const [longRecord] = await auditRecordsOf(long.body.data.id);
    expect((pastedRecord.actor as { user_agent: string }).user_agent).toBe('deploy-script/2 (key [REDACTED])');
    expect(JSON.stringify(pastedRecord)).not.toContain(team.key);
    expect((longRecord.actor as { user_agent: string }).user_agent).toBe('u'.repeat(512));
  });

  it('lets a new sk key that holds keys.manage create keys itself, acting for the same user', async () => {
    const manager = await createKey(team, { name: 'Second manager', scopes: ['keys.manage', 'enc.*:read'] });
    const response = await call('generate-api-key', {
      key: manager.key,
      body: { name: 'Made by second', type: 'pk', environment: 'live', team_id: team.teamId, scopes: ['enc.tiles:read'] },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.created_by).toBe(team.userId);
    const audit = await auditRecordsOf(response.body.data.id);
    expect((audit[0].actor as { key_id: string }).key_id).toBe(manager.id);
  });

  it('counts the caller’s use of its key', async () => {
    const manager = await createKey(team, { name: 'Counted', scopes: ['keys.manage', 'enc.*:read'] });
    await createKey({ key: manager.key, teamId: team.teamId });
    await createKey({ key: manager.key, teamId: team.teamId });
    const usage = await usageItem(manager.id);
    expect(usage?.total_requests).toBe(2);
    expect(typeof usage?.last_used_at).toBe('string');
  });

  it('lets a test key create test keys', async () => {
    const testTeam = await newTeam('test');
    const response = await call('generate-api-key', {
      key: testTeam.key,
      body: { name: 'Sandbox', type: 'sk', environment: 'test', team_id: testTeam.teamId },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.key).toMatch(/^svc_sk_test_/);
  });
});

// Its fixture's valid request (lambda/routes/generate-api-key/fixture.ts) answers as documented.
smokeTest('generate-api-key');
