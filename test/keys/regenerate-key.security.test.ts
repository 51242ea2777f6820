/**
 * Regenerate, security: who may regenerate which key, revoked values as
 * callers, and values never stored or audited in plaintext.
 */
import { call, createKey, newTeam } from '../support/api';
import { expectStatus, manualClockPerTest, storedKeyState } from '../support/keys';
import { auditRecordsOf } from '../support/store';
import { hashKeyValue } from '../../lambda/shared/keys/key-values';
import { config } from '../../lambda/shared/platform/config';

manualClockPerTest();

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
