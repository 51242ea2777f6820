/**
 * Regenerate, security: who may regenerate which key, revoked values as
 * callers, and values never stored or audited in plaintext.
 */
import { call, createKey, newTeam } from '../support/api';
import {
  MANAGER_SCOPES,
  checkValue,
  expectStatus,
  installManualClock,
  restoreSystemClock,
  storedKeyState,
} from '../support/keys';
import { auditRecordsOf } from '../support/store';
import { hashKeyValue } from '../../lambda/shared/keys/key-values';
import { config } from '../../lambda/shared/platform/config';

beforeEach(() => {
  installManualClock();
});

afterEach(() => {
  restoreSystemClock();
});

describe('regenerate: reach of the caller', () => {
  it('a key of another team → 404 (not 403), and the key is unchanged', async () => {
    // Prepare
    const owner = await newTeam();
    const stranger = await newTeam();
    const target = await createKey(owner);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('regenerate', { key: stranger.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });

  it('a test key of another team targeting a live key → 404, not 403 (the key’s existence is not revealed)', async () => {
    // Prepare
    const owner = await newTeam();
    const stranger = await newTeam('test');
    const target = await createKey(owner, { environment: 'live' });
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('regenerate', { key: stranger.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 404);
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it('a test key regenerating a live key of its own team → 403, and the key is unchanged', async () => {
    // Prepare
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const target = await createKey(team, { environment: 'live' });
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('regenerate', { key: testManager.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it('a test key may regenerate a test key of its own team', async () => {
    // Prepare
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const target = await createKey(team, { environment: 'test' });

    // Act
    const response = await call('regenerate', { key: testManager.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.new_key).toMatch(/^sk_test_/);
  });

  it.each([
    ['an sk key without keys.manage', { type: 'sk', scopes: ['enc.*:read'] }],
    ['a pk key', { type: 'pk', scopes: ['enc.tiles:read'] }],
  ])('%s as caller → 403, and the key is unchanged', async (_name, callerConfig) => {
    // Prepare
    const team = await newTeam();
    const caller = await createKey(team, callerConfig);
    const target = await createKey(team);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('regenerate', { key: caller.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 403);
    expect(await storedKeyState(target.id)).toEqual(before);
  });
});

describe('regenerate: revoked values as callers', () => {
  it('after revoke_immediately the old value is refused with 401 on the very next request', async () => {
    // Prepare
    const team = await newTeam();
    const self = await createKey(team, { scopes: MANAGER_SCOPES });
    const other = await createKey(team);
    expectStatus(await call('regenerate', { key: team.key, body: { key_id: self.id, revoke_immediately: true } }), 200);
    const otherBefore = await storedKeyState(other.id);

    // Act
    const response = await call('regenerate', { key: self.key, body: { key_id: other.id } });

    // Assess
    expectStatus(response, 401);
    expect(response.body.error.code).toBe('UNAUTHORIZED');
    expect(response.headers['WWW-Authenticate']).toMatch(/^Bearer/);
    expect(await storedKeyState(other.id)).toEqual(otherBefore);
  });

  it('a deleted key’s value cannot regenerate anything (401)', async () => {
    // Prepare
    const team = await newTeam();
    const gone = await createKey(team, { scopes: MANAGER_SCOPES });
    const other = await createKey(team);
    expectStatus(await call('delete', { key: team.key, body: { key_id: gone.id, confirm_deletion: true } }), 200);

    // Act
    const response = await call('regenerate', { key: gone.key, body: { key_id: other.id } });

    // Assess
    expectStatus(response, 401);
  });
});

describe('regenerate: values are never stored or audited', () => {
  it('neither the old nor the new value, nor their hashes, appear in any audit record of the key', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 200);
    const newValue: string = response.body.new_key;
    const records = JSON.stringify(await auditRecordsOf(target.id));
    const secrets = [target.key, newValue, hashKeyValue(target.key, config.pepper), hashKeyValue(newValue, config.pepper)];
    const leaked = secrets.filter((secret) => records.includes(secret));
    expect({ leaked, records }).toMatchObject({ leaked: [] });
    // The team's calling key is not leaked either.
    expect(records.includes(team.key)).toBe(false);
  });

  it('the key table holds only hashes of the new value, never the value itself', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 200);
    const newValue: string = response.body.new_key;
    const stored = JSON.stringify(await storedKeyState(target.id));
    expect({ containsNew: stored.includes(newValue), containsOld: stored.includes(target.key) }).toEqual({
      containsNew: false,
      containsOld: false,
    });
    expect(stored).toContain(hashKeyValue(newValue, config.pepper));
  });

  it('the response that carries the new value may not be cached', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('regenerate', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 200);
    expect(response.headers).toMatchObject({ 'Cache-Control': 'no-store' });
  });
});
