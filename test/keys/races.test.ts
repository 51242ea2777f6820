/**
 * Race-freedom of regenerate and delete: concurrent requests against one key
 * leave exactly one winner and never a deleted key with a working value,
 * nor a team without a manager key.
 */
import { call, createKey, newTeam, type CallResult } from '../support/api';
import { MANAGER_SCOPES, checkValue, manualClockPerTest } from '../support/keys';
import { keyItem, lookupItemsForKey } from '../support/store';

manualClockPerTest();

const statusesOf = (responses: CallResult[]) => responses.map((response) => response.status);

describe('concurrent regenerates', () => {
  it('20 concurrent regenerates of one key: exactly one 200 and nineteen 409; only the returned new value and the old one work', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const responses = await Promise.all(Array.from({ length: 20 }, () => call('regenerate-api-key', { key: team.key, body: { key_id: target.id } })));

    // Assess
    const statuses = statusesOf(responses).sort();
    expect(statuses).toEqual([200, ...Array<number>(19).fill(409)]);
    const winner = responses.find((response) => response.status === 200) as CallResult;
    const losers = responses.filter((response) => response.status !== 200);
    expect(losers.filter((response) => 'new_key' in response.body)).toEqual([]);
    expect(losers.map((response) => response.body.error.code)).toEqual(Array<string>(19).fill('CONFLICT'));
    expect(await checkValue(winner.body.new_key)).toMatchObject({ valid: true, checked: { key: { slot: 'current' } } });
    expect(await checkValue(target.key)).toMatchObject({ valid: true, checked: { key: { slot: 'previous' } } });
    const lookups = await lookupItemsForKey(target.id);
    expect(lookups.map((lookup) => lookup.slot).sort()).toEqual(['current', 'previous']);
    expect(await keyItem(target.id)).toMatchObject({ generation: 2, last_four: winner.body.new_key.slice(-4) });
  });

  it('20 concurrent immediate regenerates: exactly one 200, and only its value works', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } })),
    );

    // Assess
    const winners = responses.filter((response) => response.status === 200);
    // With no transition left live, a request that starts after the winner committed may win again;
    // every 200 must then have replaced the previous value, so exactly one value works.
    const statuses = statusesOf(responses);
    expect({ statuses, atLeastOneWinner: winners.length >= 1 }).toEqual({ statuses, atLeastOneWinner: true });
    expect({ statuses, onlyOkOrConflict: statuses.every((status) => status === 200 || status === 409) }).toEqual({
      statuses,
      onlyOkOrConflict: true,
    });
    const working: string[] = [];
    for (const value of [target.key, ...winners.map((response) => response.body.new_key as string)]) {
      if ((await checkValue(value)).valid) working.push(value);
    }
    expect(working).toHaveLength(1);
    expect(await lookupItemsForKey(target.id)).toHaveLength(1);
    expect(await keyItem(target.id)).toMatchObject({ generation: 1 + winners.length, last_four: working[0].slice(-4) });
  });
});

describe('concurrent delete and regenerate', () => {
  it('never leaves a deleted key with a working value (10 rounds, fresh keys)', async () => {
    // Prepare
    const team = await newTeam();

    for (let round = 0; round < 10; round++) {
      const target = await createKey(team, { name: `race ${round}` });

      // Act
      const [deletion, regeneration] = await Promise.all([
        call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } }),
        call('regenerate-api-key', { key: team.key, body: { key_id: target.id } }),
      ]);

      // Assess
      const context = `round ${round}: delete ${deletion.status} ${JSON.stringify(deletion.body)}, regenerate ${regeneration.status} ${JSON.stringify(regeneration.body)}`;
      expect({ context, delete: [200, 409].includes(deletion.status) }).toEqual({ context, delete: true });
      expect({ context, regenerate: [200, 404, 409].includes(regeneration.status) }).toEqual({ context, regenerate: true });
      expect({ context, someoneWon: deletion.status === 200 || regeneration.status === 200 }).toEqual({ context, someoneWon: true });
      const item = await keyItem(target.id);
      const values = [target.key, ...(regeneration.status === 200 ? [regeneration.body.new_key as string] : [])];
      if (item?.state === 'deleted') {
        expect({ context, deleteStatus: deletion.status }).toEqual({ context, deleteStatus: 200 });
        expect({ context, lookups: await lookupItemsForKey(target.id) }).toEqual({ context, lookups: [] });
        for (const value of values) {
          expect({ context, result: await checkValue(value) }).toMatchObject({ context, result: { valid: false } });
        }
      } else {
        expect({ context, state: item?.state, regenerateStatus: regeneration.status }).toEqual({
          context,
          state: 'active',
          regenerateStatus: 200,
        });
        expect({ context, result: await checkValue(regeneration.body.new_key) }).toMatchObject({ context, result: { valid: true } });
      }
    }
  });
});

describe('concurrent disables of the last two managers', () => {
  it('each disabling the other (each the other’s survivor, taken without a read): exactly one succeeds, one active manager remains (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      // Prepare
      const team = await newTeam();
      const second = await createKey(team, { scopes: MANAGER_SCOPES, name: `manager ${round}` });

      // Act
      const answers = await Promise.all([
        call('update-api-key', { key: team.key, body: { key_id: second.id, is_active: false } }),
        call('update-api-key', { key: second.key, body: { key_id: team.keyId, is_active: false } }),
      ]);

      // Assess
      const statuses = answers.map((answer) => answer.status);
      const context = `round ${round}: ${JSON.stringify(answers.map((answer) => answer.body))}`;
      expect({ context, successes: statuses.filter((status) => status === 200).length }).toEqual({ context, successes: 1 });
      expect({ context, loser: statuses.filter((status) => status !== 200).every((status) => status === 409 || status === 401) }).toEqual({
        context,
        loser: true,
      });
      const active = [(await keyItem(team.keyId))?.is_active, (await keyItem(second.id))?.is_active];
      expect({ context, active: active.filter(Boolean).length }).toEqual({ context, active: 1 });
    }
  });
});

describe('concurrent deletes of the last two managers', () => {
  it('each deleting the other: exactly one succeeds and one manager with a working value remains (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      // Prepare
      const team = await newTeam();
      const second = await createKey(team, { scopes: MANAGER_SCOPES, name: `manager ${round}` });

      // Act
      const [firstDeletesSecond, secondDeletesFirst] = await Promise.all([
        call('delete-api-key', { key: team.key, body: { key_id: second.id, confirm_deletion: true } }),
        call('delete-api-key', { key: second.key, body: { key_id: team.keyId, confirm_deletion: true } }),
      ]);

      // Assess
      const statuses = [firstDeletesSecond.status, secondDeletesFirst.status];
      const context = `round ${round}: ${JSON.stringify([firstDeletesSecond.body, secondDeletesFirst.body])}`;
      expect({ context, successes: statuses.filter((status) => status === 200).length }).toEqual({ context, successes: 1 });
      // The loser is refused as a conflict, or as unauthenticated when its own key was already gone.
      expect({ context, loser: statuses.filter((status) => status !== 200).every((status) => status === 409 || status === 401) }).toEqual({
        context,
        loser: true,
      });
      const states = [(await keyItem(team.keyId))?.state, (await keyItem(second.id))?.state];
      expect({ context, states: states.sort() }).toEqual({ context, states: ['active', 'deleted'] });
      const survivor = firstDeletesSecond.status === 200 ? team.key : second.key;
      expect({ context, survivor: await checkValue(survivor) }).toMatchObject({ context, survivor: { valid: true } });
    }
  });

  it('one manager deleting the other manager and itself concurrently: exactly one succeeds, one manager remains', async () => {
    // Prepare (both deletes are issued by the first manager)
    const team = await newTeam();
    const second = await createKey(team, { scopes: MANAGER_SCOPES });

    // Act
    const [deleteSecond, deleteSelf] = await Promise.all([
      call('delete-api-key', { key: team.key, body: { key_id: second.id, confirm_deletion: true } }),
      call('delete-api-key', { key: team.key, body: { key_id: team.keyId, confirm_deletion: true } }),
    ]);

    // Assess
    const statuses = [deleteSecond.status, deleteSelf.status];
    expect({ statuses, successes: statuses.filter((status) => status === 200).length }).toMatchObject({ successes: 1 });
    const states = [(await keyItem(team.keyId))?.state, (await keyItem(second.id))?.state].sort();
    expect(states).toEqual(['active', 'deleted']);
  });
});
