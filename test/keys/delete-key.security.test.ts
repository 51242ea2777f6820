/**
 * Delete, security: who may delete which key, deleted values as callers,
 * and no value or hash left in the tombstone or the audit trail.
 */
import { call, createKey, newTeam } from '../support/api';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest, storedKeyState } from '../support/keys';
import { auditRecordsOf, keyItem } from '../support/store';
import { hashKeyValue } from '../../lambda/shared/keys/key-values';
import { config } from '../../lambda/shared/platform/config';

manualClockPerTest();

describe('delete: reach of the caller', () => {

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
