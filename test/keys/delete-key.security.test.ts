/**
 * Delete, security: who may delete which key, deleted values as callers,
 * and no value or hash left in the tombstone or the audit trail.
 */
import { call, createKey, newTeam } from '../support/api';
import {
  MANAGER_SCOPES,
  UNKNOWN_KEY_ID,
  checkValue,
  expectStatus,
  installManualClock,
  restoreSystemClock,
  storedKeyState,
} from '../support/keys';
import { auditRecordsOf, keyItem } from '../support/store';
import { hashKeyValue } from '../../lambda/shared/keys/key-values';
import { config } from '../../lambda/shared/platform/config';

beforeEach(() => {
  installManualClock();
});

afterEach(() => {
  restoreSystemClock();
});

describe('delete: reach of the caller', () => {
  it('a key of another team → 404 (not 403), and the key keeps working', async () => {
    // Prepare
    const owner = await newTeam();
    const stranger = await newTeam();
    const target = await createKey(owner);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('delete', { key: stranger.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });

  it('another team’s key and an unknown id get the same 404 body apart from the request id', async () => {
    // Prepare
    const owner = await newTeam();
    const stranger = await newTeam();
    const target = await createKey(owner);

    // Act
    const foreign = await call('delete', { key: stranger.key, body: { key_id: target.id, confirm_deletion: true } });
    const missing = await call('delete', { key: stranger.key, body: { key_id: UNKNOWN_KEY_ID, confirm_deletion: true } });

    // Assess
    expectStatus(foreign, 404);
    expectStatus(missing, 404);
    const shape = (body: { error: { code: string; message: string; details: Array<{ field: string; issue: string }> } }) => ({
      code: body.error.code,
      message: body.error.message,
      details: body.error.details.map((detail) => ({ field: detail.field, issue: detail.issue.replace(/[0-9A-Z]{26}/, '<id>') })),
    });
    expect(shape(foreign.body)).toEqual(shape(missing.body));
  });

  it('a test key of another team targeting a live key → 404, not 403 (the key’s existence is not revealed)', async () => {
    // Prepare
    const owner = await newTeam();
    const stranger = await newTeam('test');
    const target = await createKey(owner, { environment: 'live' });
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('delete', { key: stranger.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 404);
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it('a test key deleting a live key of its own team → 403, and the key keeps working', async () => {
    // Prepare
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const target = await createKey(team, { environment: 'live' });
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('delete', { key: testManager.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });

  it('a test key may delete a test key of its own team', async () => {
    // Prepare
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const target = await createKey(team, { environment: 'test' });

    // Act
    const response = await call('delete', { key: testManager.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
  });

  it.each([
    ['an sk key without keys.manage', { type: 'sk', scopes: ['enc.*:read'] }],
    ['a pk key', { type: 'pk', scopes: ['enc.tiles:read'] }],
  ])('%s as caller → 403, and the key keeps working', async (_name, callerConfig) => {
    // Prepare
    const team = await newTeam();
    const caller = await createKey(team, callerConfig);
    const target = await createKey(team);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('delete', { key: caller.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 403);
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it('a key without keys.manage cannot delete itself either (403)', async () => {
    // Prepare
    const team = await newTeam();
    const self = await createKey(team, { scopes: ['enc.*:read'] });

    // Act
    const response = await call('delete', { key: self.key, body: { key_id: self.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 403);
    expect(await keyItem(self.id)).toMatchObject({ state: 'active' });
  });
});

describe('delete: deleted values as callers', () => {
  it('a deleted key’s value is refused with 401 on the very next request', async () => {
    // Prepare
    const team = await newTeam();
    const gone = await createKey(team, { scopes: MANAGER_SCOPES });
    expectStatus(await call('delete', { key: team.key, body: { key_id: gone.id, confirm_deletion: true } }), 200);

    // Act
    const response = await call('create', {
      key: gone.key,
      body: { name: 'after death', type: 'sk', environment: 'live', team_id: team.teamId },
    });

    // Assess
    expectStatus(response, 401);
    expect(response.headers['WWW-Authenticate']).toMatch(/^Bearer/);
  });

  it('the in-transition old value of a deleted key is refused with 401 as well', async () => {
    // Prepare
    const team = await newTeam();
    const gone = await createKey(team, { scopes: MANAGER_SCOPES });
    const regenerated = await call('regenerate', { key: team.key, body: { key_id: gone.id, grace_period_days: 30 } });
    expectStatus(regenerated, 200);
    expectStatus(await call('delete', { key: team.key, body: { key_id: gone.id, confirm_deletion: true } }), 200);
    const body = { name: 'after death', type: 'sk', environment: 'live', team_id: team.teamId };

    // Act
    const byOld = await call('create', { key: gone.key, body });
    const byNew = await call('create', { key: regenerated.body.new_key, body });

    // Assess
    expectStatus(byOld, 401);
    expectStatus(byNew, 401);
  });

  it('a key deleting itself (with another manager left) is refused on its next request', async () => {
    // Prepare
    const team = await newTeam();
    const self = await createKey(team, { scopes: MANAGER_SCOPES });
    expectStatus(await call('delete', { key: self.key, body: { key_id: self.id, confirm_deletion: true } }), 200);

    // Act
    const response = await call('delete', { key: self.key, body: { key_id: self.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 401);
  });
});

describe('delete: no value or hash survives', () => {
  it('neither the tombstone nor the audit records hold a value or a hash of one', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const regenerated = await call('regenerate', { key: team.key, body: { key_id: target.id } });
    expectStatus(regenerated, 200);
    const newValue: string = regenerated.body.new_key;

    // Act
    const response = await call('delete', { key: team.key, body: { key_id: target.id, confirm_deletion: true, reason: 'leaked' } });

    // Assess
    expectStatus(response, 200);
    const stored = JSON.stringify({ state: await storedKeyState(target.id), audit: await auditRecordsOf(target.id) });
    const secrets = [target.key, newValue, hashKeyValue(target.key, config.pepper), hashKeyValue(newValue, config.pepper)];
    const leaked = secrets.filter((secret) => stored.includes(secret));
    expect({ leaked, stored }).toMatchObject({ leaked: [] });
  });

  it('the response holds no value', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('delete', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    const text = JSON.stringify(response.body);
    expect({ containsValue: text.includes(target.key), containsCaller: text.includes(team.key) }).toEqual({
      containsValue: false,
      containsCaller: false,
    });
  });
});
