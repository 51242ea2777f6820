/**
 * Grace-period boundaries through the clock port: time is moved with a
 * ManualClock, never slept, and no clean-up (schedule) runs — the old value
 * dies and a new regenerate becomes possible by the clock alone.
 */
import { MS_PER_DAY } from '../../lambda/platform/clock';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { MANAGER_SCOPES, checkValue, expectStatus, manualClockPerTest } from '../support/keys';
import { lookupItemOf, lookupItemsForKey } from '../support/store';

const clock = manualClockPerTest();

/** A harmless management call made with `value`: creating a throwaway key. */
function manageWith(team: TestTeam, value: string) {
  return call('generate-api-key', { key: value, body: { name: 'probe', type: 'sk', environment: 'live', team_id: team.teamId } });
}

/** A key (usable as a caller) regenerated with the given grace; returns its old and new value and the transition end. */
async function regeneratedKey(team: TestTeam, graceDays?: number) {
  const key = await createKey(team, { scopes: MANAGER_SCOPES });
  const body = graceDays === undefined ? { key_id: key.id } : { key_id: key.id, grace_period_days: graceDays };
  const response = await call('regenerate-api-key', { key: team.key, body });
  expectStatus(response, 200);
  return {
    id: key.id,
    oldValue: key.key,
    newValue: response.body.new_key as string,
    endsAt: Date.parse(response.body.key_info.transition_ends_at),
  };
}

/** A key regenerated with one grace day, then again (`secondGraceDays`) at the end of the first transition. */
async function regeneratedAgainAtTheEnd(secondGraceDays: number) {
  const team = await newTeam();
  const key = await regeneratedKey(team, 1);
  clock().set(key.endsAt);
  const second = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id, grace_period_days: secondGraceDays } });
  expectStatus(second, 200);
  return { team, key, second };
}

describe('grace boundaries by the clock', () => {
  it('at transition_ends_at − 1 ms the old value still authenticates', async () => {
    // Prepare
    const team = await newTeam();
    const key = await regeneratedKey(team, 1);
    clock().set(key.endsAt - 1);

    // Act
    const checked = await checkValue(key.oldValue);
    const managed = await manageWith(team, key.oldValue);

    // Assess
    expect(checked).toMatchObject({ valid: true, checked: { key: { id: key.id, slot: 'previous' } } });
    expectStatus(managed, 201);
  });

  it('at transition_ends_at the old value is REVOKED and refused with 401, though its lookup is still stored', async () => {
    // Prepare
    const team = await newTeam();
    const key = await regeneratedKey(team, 1);
    clock().set(key.endsAt);

    // Act
    const checked = await checkValue(key.oldValue);
    const managed = await manageWith(team, key.oldValue);

    // Assess
    expect(checked).toMatchObject({ valid: false, code: 'REVOKED', keyId: key.id });
    expectStatus(managed, 401);
    expect(managed.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/i) });
    // No clean-up ran: the clock alone refused the value.
    expect(await lookupItemOf(key.oldValue)).toMatchObject({ slot: 'previous' });
  });

  it('the new value authenticates before, at and long after transition_ends_at', async () => {
    // Prepare
    const team = await newTeam();
    const key = await regeneratedKey(team, 1);
    const results: unknown[] = [];

    // Act
    for (const at of [key.endsAt - 1, key.endsAt, key.endsAt + 400 * MS_PER_DAY]) {
      clock().set(at);
      results.push((await checkValue(key.newValue)).valid);
    }

    // Assess
    expect(results).toEqual([true, true, true]);
  });

  it.each([
    { label: 'default (7)', graceDays: undefined },
    { label: '30', graceDays: 30 },
  ])('grace_period_days $label: the old value works at regenerated_at + days − 1 ms and not at + days', async ({ graceDays }) => {
    // Prepare
    const team = await newTeam();
    const regeneratedAt = clock().now().getTime();
    const key = await regeneratedKey(team, graceDays);
    const days = graceDays ?? 7;
    expect(key.endsAt).toBe(regeneratedAt + days * MS_PER_DAY);

    // Act
    clock().set(key.endsAt - 1);
    const before = await checkValue(key.oldValue);
    clock().set(key.endsAt);
    const at = await checkValue(key.oldValue);

    // Assess
    expect([before.valid, at]).toEqual([true, expect.objectContaining({ valid: false, code: 'REVOKED' })]);
  });
});

describe('regenerate again by the clock', () => {
  it('refused with 409 at transition_ends_at − 1 ms, allowed at transition_ends_at with no clean-up run', async () => {
    // Prepare
    const team = await newTeam();
    const key = await regeneratedKey(team, 2);

    // Act
    clock().set(key.endsAt - 1);
    const early = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id } });
    clock().set(key.endsAt);
    const onTime = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id } });

    // Assess
    expectStatus(early, 409);
    expectStatus(onTime, 200);
    expect(onTime.body.key_info).toMatchObject({
      regenerated_at: new Date(key.endsAt).toISOString(),
      transition_ends_at: new Date(key.endsAt + 7 * MS_PER_DAY).toISOString(),
    });
  });

  it('the second regeneration makes the first new value the old one; the first old value is gone for good', async () => {
    // Prepare, Act
    const { key, second } = await regeneratedAgainAtTheEnd(1);

    // Assess
    const results = {
      firstOld: (await checkValue(key.oldValue)).valid,
      firstNew: await checkValue(key.newValue),
      secondNew: (await checkValue(second.body.new_key)).valid,
    };
    expect(results).toEqual({
      firstOld: false,
      firstNew: expect.objectContaining({ valid: true, checked: expect.objectContaining({ key: expect.objectContaining({ slot: 'previous' }) }) }),
      secondNew: true,
    });
    expect(await lookupItemsForKey(key.id)).toHaveLength(2);
  });

  it('the old value of the second transition dies at its own end, by the clock', async () => {
    // Prepare
    const { key, second } = await regeneratedAgainAtTheEnd(3);
    const secondEnd = Date.parse(second.body.key_info.transition_ends_at);

    // Act
    clock().set(secondEnd - 1);
    const before = (await checkValue(key.newValue)).valid;
    clock().set(secondEnd);
    const at = await checkValue(key.newValue);

    // Assess
    expect({ before, at }).toEqual({ before: true, at: expect.objectContaining({ valid: false, code: 'REVOKED' }) });
  });
});
