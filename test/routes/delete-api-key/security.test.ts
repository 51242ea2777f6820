/**
 * Delete, security: who may delete which key, deleted values as callers,
 * and no value or hash left in the tombstone or the audit trail.
 */
import { call, createKey, newTeam } from '../../support/api';
import { MANAGER_SCOPES, expectStatus, keyInTransition, manualClockPerTest, storedKeyState, valuesAndHashes } from '../../support/keys';
import { auditRecordsOf, keyItem } from '../../support/store';

manualClockPerTest();

describe('delete: reach of the caller', () => {
  it('a key without keys.manage cannot delete itself either (403)', async () => {
    // Prepare
    const team = await newTeam();
    const self = await createKey(team, { scopes: ['enc.*:read'] });

    // Act
    const response = await call('delete-api-key', { key: self.key, body: { key_id: self.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 403);
    expect(await keyItem(self.id)).toMatchObject({ state: 'active' });
  });
});

describe('delete: deleted values as callers', () => {
  it('the in-transition old value of a deleted key is refused with 401 as well', async () => {
    // Prepare
    const gone = await keyInTransition({ scopes: MANAGER_SCOPES, graceDays: 30 });
    const { team } = gone;
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: gone.keyId, confirm_deletion: true } }), 200);
    const body = { name: 'after death', type: 'sk', environment: 'live', team_id: team.teamId };

    // Act
    const byOld = await call('generate-api-key', { key: gone.oldValue, body });
    const byNew = await call('generate-api-key', { key: gone.newValue, body });

    // Assess
    expectStatus(byOld, 401);
    expectStatus(byNew, 401);
  });
});

describe('delete: no value or hash survives', () => {
  it('neither the tombstone nor the audit records hold a value or a hash of one', async () => {
    // Prepare
    const { team, keyId, oldValue, newValue } = await keyInTransition();

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: keyId, confirm_deletion: true, reason: 'leaked' } });

    // Assess
    expectStatus(response, 200);
    const stored = JSON.stringify({ state: await storedKeyState(keyId), audit: await auditRecordsOf(keyId) });
    const leaked = valuesAndHashes(oldValue, newValue).filter((secret) => stored.includes(secret));
    expect({ leaked, stored }).toMatchObject({ leaked: [] });
  });

  it('the response holds no value', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    const text = JSON.stringify(response.body);
    expect({ containsValue: text.includes(target.key), containsCaller: text.includes(team.key) }).toEqual({
      containsValue: false,
      containsCaller: false,
    });
  });
});
