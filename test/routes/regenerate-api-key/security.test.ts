/**
 * Regenerate, security: neither value nor hash is stored or audited in
 * plaintext, and the answer that carries the new value is not cached.
 */
import { keyInTransition, manualClockPerTest, storedKeyState, valuesAndHashes } from '../../support/keys';
import { auditRecordsOf } from '../../support/store';

manualClockPerTest();

describe('regenerate: values are never stored or audited', () => {
  it('neither the old nor the new value, nor their hashes, appear in any audit record of the key', async () => {
    // Prepare, Act
    const key = await keyInTransition();

    // Assess
    const records = JSON.stringify(await auditRecordsOf(key.keyId));
    const leaked = valuesAndHashes(key.oldValue, key.newValue, key.team.key).filter((secret) => records.includes(secret));
    expect({ leaked, records }).toMatchObject({ leaked: [] });
  });

  it('the key table holds only hashes of the new value, never the value itself', async () => {
    // Prepare, Act
    const key = await keyInTransition();

    // Assess
    const stored = JSON.stringify(await storedKeyState(key.keyId));
    expect({ containsNew: stored.includes(key.newValue), containsOld: stored.includes(key.oldValue) }).toEqual({
      containsNew: false,
      containsOld: false,
    });
    expect(stored).toContain(valuesAndHashes(key.newValue)[1]);
  });

  it('the response that carries the new value may not be cached', async () => {
    // Prepare, Act
    const { response } = await keyInTransition();

    // Assess
    expect(response.headers).toMatchObject({ 'Cache-Control': 'no-store' });
  });
});
