/**
 * Regenerate, errors: strict body validation (400, with nothing changed),
 * a live transition (409), unknown or deleted keys (404), no credentials (401).
 */
import { call, createKey, newTeam } from '../../support/api';
import { runCommonManagementTests } from '../../support/management-matrix';
import { checkValue, expectStatus, manualClockPerTest, selfManagingKey, storedKeyState } from '../../support/keys';

manualClockPerTest();

describe('regenerate: invalid bodies are refused with 400 and change nothing', () => {
  it('several problems at once are all listed', async () => {
    // Prepare
    const { key } = await selfManagingKey();

    // Act
    const response = await call('regenerate-api-key', {
      key: key.key,
      body: { key_id: 'nope', grace_period_days: 0, revoke_immediately: 'yes', extra: 1 },
    });

    // Assess
    expectStatus(response, 400);
    const fields = response.body.error.details.map((detail: { field: string }) => detail.field).sort();
    expect(fields).toEqual(['extra', 'grace_period_days', 'key_id', 'revoke_immediately']);
  });
});

describe('regenerate: conflicts', () => {
  it('a second regenerate while the transition is live → 409 naming the transition end, and nothing changes', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const first = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 2 } });
    expectStatus(first, 200);
    const before = await storedKeyState(target.id);

    // Act
    const second = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(second, 409);
    expect(second.body.error.code).toBe('CONFLICT');
    expect(second.body.error.message).toContain(first.body.key_info.transition_ends_at);
    expect(second.body).not.toHaveProperty('new_key');
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
    expect(await checkValue(first.body.new_key)).toMatchObject({ valid: true });
  });

  it('revoke_immediately during a live transition is refused with 409 too (the old value keeps its grace)', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } }), 200);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } });

    // Assess
    expectStatus(response, 409);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });
});

runCommonManagementTests({
  endpoint: 'regenerate-api-key',
  requestFor: (keyId) => ({ body: { key_id: keyId } }),
  success: 200,
  invalidBodies: [
    {
      name: 'grace_period_days together with revoke_immediately: true (contradictory)',
      bodyFor: (id) => ({ key_id: id, grace_period_days: 14, revoke_immediately: true }),
      field: 'grace_period_days',
      issue: /revoke_immediately/,
    },
    { name: 'grace_period_days 0', bodyFor: (id) => ({ key_id: id, grace_period_days: 0 }), field: 'grace_period_days' },
    { name: 'grace_period_days 31', bodyFor: (id) => ({ key_id: id, grace_period_days: 31 }), field: 'grace_period_days' },
    { name: 'grace_period_days -1', bodyFor: (id) => ({ key_id: id, grace_period_days: -1 }), field: 'grace_period_days' },
    { name: 'grace_period_days 1.5', bodyFor: (id) => ({ key_id: id, grace_period_days: 1.5 }), field: 'grace_period_days' },
    // A whole number past 2^53: one detail (the range), not also "must be a whole number of days".
    { name: 'grace_period_days 1e20', bodyFor: (id) => ({ key_id: id, grace_period_days: 1e20 }), field: 'grace_period_days' },
    { name: 'grace_period_days "7" (a string)', bodyFor: (id) => ({ key_id: id, grace_period_days: '7' }), field: 'grace_period_days' },
    { name: 'grace_period_days null', bodyFor: (id) => ({ key_id: id, grace_period_days: null }), field: 'grace_period_days' },
    { name: 'revoke_immediately "true" (a string)', bodyFor: (id) => ({ key_id: id, revoke_immediately: 'true' }), field: 'revoke_immediately' },
    { name: 'revoke_immediately 1', bodyFor: (id) => ({ key_id: id, revoke_immediately: 1 }), field: 'revoke_immediately' },
    {
      name: 'a misspelt field',
      bodyFor: (id) => ({ key_id: id, grace_days: 3 }),
      field: 'grace_days',
      issue: /^is not a field of this request \(did you mean grace_period_days\?\)$/,
    },
  ],
});
