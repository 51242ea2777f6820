/**
 * update-api-key racing regenerate and delete: never a lost update, the loser
 * answers 409 (or 404), never a live lookup of a deleted key.
 */
import { call, createKey, newTeam } from '../../support/api';
import { manualClockPerTest, storedKeyState } from '../../support/keys';
import { keyItem, lookupItemOf } from '../../support/store';

manualClockPerTest();

describe('update-api-key: races', () => {
  it('update against regenerate, 10 rounds: never a lost update, the loser answers 409', async () => {
    for (let round = 0; round < 10; round++) {
      // Prepare
      const team = await newTeam();
      const target = await createKey(team, { rate_limit: 5 });

      // Act
      const [updated, regenerated] = await Promise.all([
        call('update-api-key', { key: team.key, body: { key_id: target.id, rate_limit: 500 + round } }),
        call('regenerate-api-key', { key: team.key, body: { key_id: target.id } }),
      ]);

      // Assess: whatever committed is on the key and on every lookup that authenticates
      expect([200, 409]).toContain(updated.status);
      expect([200, 409]).toContain(regenerated.status);
      expect(updated.status === 200 || regenerated.status === 200).toBe(true);
      const key = await keyItem(target.id);
      const expectedLimit = updated.status === 200 ? 500 + round : 5;
      expect(key?.rate_limit).toBe(expectedLimit);
      for (const value of [target.key, regenerated.body.new_key].filter(Boolean)) {
        const lookup = await lookupItemOf(value);
        if (lookup) expect({ round, limit: lookup.rate_limit }).toEqual({ round, limit: expectedLimit });
      }
    }
  });

  it('update against delete: 404 or 409 for the loser, never a live lookup of a deleted key', async () => {
    for (let round = 0; round < 10; round++) {
      const team = await newTeam();
      const target = await createKey(team);
      const [updated, deleted] = await Promise.all([
        call('update-api-key', { key: team.key, body: { key_id: target.id, is_active: false } }),
        call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } }),
      ]);
      expect([200, 404, 409]).toContain(updated.status);
      expect([200, 409]).toContain(deleted.status);
      const state = await storedKeyState(target.id);
      if (state.key?.state === 'deleted') expect(state.lookups).toEqual([]);
      else expect(state.lookups.every((lookup) => lookup.is_active === state.key?.is_active)).toBe(true);
    }
  });
});
