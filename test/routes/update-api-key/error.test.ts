/**
 * update-api-key's refusals: the validation a create applies, the
 * last-manager guard, scopes the caller does not hold, and the rules every
 * management route shares. Nothing changes but the caller's use.
 */
import { call, createKey, newTeam } from '../../support/api';
import { runCommonManagementTests } from '../../support/management-matrix';
import { MANAGER_SCOPES, checkValue, expectOnlyOneUse, expectStatus, manualClockPerTest, storedKeyState, useValue } from '../../support/keys';

manualClockPerTest();

describe('update-api-key: refusals', () => {
  it('a scope the caller does not hold → 403; nothing changes but the caller’s use', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('update-api-key', { key: team.key, body: { key_id: target.id, scopes: ['billing.invoices:write'] } });

    // Assess
    expectStatus(response, 403);
    expect(response.body.error.details).toEqual([{ field: 'scopes', issue: 'not held by the calling key: billing.invoices:write' }]);
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it.each([
    [
      'domains on an sk key',
      'sk',
      { domains: ['https://a.example.com'] },
      'domains apply to public (pk) keys only (a secret key is not checked against an Origin)',
    ],
    [
      'keys.manage on a pk key',
      'pk',
      { scopes: ['keys.manage'] },
      'scopes must not include keys.manage on a public (pk) key (a pk value is shown to browsers)',
    ],
  ])('%s → 400 naming the field, in a sentence that reads', async (_name, type, change, says) => {
    const team = await newTeam();
    const target = await createKey(team, { type });
    const response = await call('update-api-key', { key: team.key, body: { key_id: target.id, ...change } });
    expectStatus(response, 400);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([Object.keys(change)[0]]);
    expect(response.body.error.message).toBe(`The request is invalid: ${says}.`);
  });

  it.each([
    ['the team’s last manager disabled', { is_active: false }],
    ['keys.manage stripped from the team’s last manager', { scopes: ['enc.*:read'] }],
  ])('%s → 409, and it keeps working', async (_name, change) => {
    // Prepare
    const team = await newTeam();

    // Act
    const response = await call('update-api-key', { key: team.key, body: { key_id: team.keyId, ...change } });

    // Assess
    expectStatus(response, 409);
    expect(response.body.error.message).toMatch(/last active secret key holding keys.manage/);
    expect((await checkValue(team.key, { scope: 'keys.manage' })).valid).toBe(true);
  });

  it('a manager may be disabled while another manager remains', async () => {
    const team = await newTeam();
    const second = await createKey(team, { scopes: MANAGER_SCOPES });
    expectStatus(await call('update-api-key', { key: second.key, body: { key_id: team.keyId, is_active: false } }), 200);
    expect((await useValue(team.key)).code).toBe('INACTIVE');
  });

  it('the key as read, sent back with a change → 400 naming each read-only field and why; nothing changes but the caller’s use', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const read = (await call('get-api-key', { key: team.key, query: { key_id: target.id } })).body.data;
    const before = await storedKeyState(target.id);

    // Act
    const { id, ...resource } = read;
    const response = await call('update-api-key', { key: team.key, body: { ...resource, key_id: id, name: 'Renamed', key: 'x', nickname: 'y' } });

    // Assess
    expectStatus(response, 400);
    const issues = Object.fromEntries(response.body.error.details.map((d: { field: string; issue: string }) => [d.field, d.issue]));
    expect(Object.keys(issues).sort()).toEqual(
      [
        'created_at',
        'created_by',
        'environment',
        'key',
        'key_prefix',
        'last_four',
        'last_used_at',
        'nickname',
        'state',
        'team_id',
        'transition_ends_at',
        'type',
        'updated_at',
      ].sort(),
    );
    expect(issues).toMatchObject({
      type: 'cannot be changed: it is set when the key is created (create a new key to change it)',
      state: 'cannot be set: send is_active to disable or enable the key',
      key: 'cannot be changed: regenerate the key for a new value',
      last_used_at: 'cannot be changed: the service keeps it',
      nickname: 'is not a field of this request',
    });
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it.each([
    [{ type: 'pk' }, 'type', 'cannot be changed: it is set when the key is created (create a new key to change it)'],
    [{ nmae: 'Renamed' }, 'nmae', 'is not a field of this request (did you mean name?)'],
  ])('only a field an update cannot take (%j) → 400 naming it, and not also "no field to change"', async (change, field, issue) => {
    // Prepare
    const team = await newTeam();
    const before = await storedKeyState(team.keyId);

    // Act
    const response = await call('update-api-key', { key: team.key, body: { key_id: team.keyId, ...change } });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field, issue }]);
    expectOnlyOneUse(before, await storedKeyState(team.keyId));
  });

  it('an empty change set → 400', async () => {
    const team = await newTeam();
    const response = await call('update-api-key', { key: team.key, body: { key_id: team.keyId } });
    expectStatus(response, 400);
    expect(response.body.error.message).toBe(
      'The request is invalid: no field to change was sent (send at least one of name, description, scopes, domains, ip_whitelist, rate_limit, expires_at, on_leak, is_active).',
    );
  });
});

runCommonManagementTests({
  endpoint: 'update-api-key',
  requestFor: (keyId) => ({ body: { key_id: keyId, description: 'edited' } }),
  success: 200,
  invalidBodies: [
    { name: 'name blank', bodyFor: (id) => ({ key_id: id, name: '  ' }), field: 'name' },
    { name: 'rate_limit 0', bodyFor: (id) => ({ key_id: id, rate_limit: 0 }), field: 'rate_limit' },
    { name: 'expires_at in the past', bodyFor: (id) => ({ key_id: id, expires_at: '2001-01-01T00:00:00Z' }), field: 'expires_at' },
    { name: 'is_active "false" (a string)', bodyFor: (id) => ({ key_id: id, is_active: 'false' }), field: 'is_active' },
    { name: 'a scope with bad grammar', bodyFor: (id) => ({ key_id: id, scopes: ['everything'] }), field: 'scopes.0' },
    { name: 'an IP that is not one', bodyFor: (id) => ({ key_id: id, ip_whitelist: ['10.1'] }), field: 'ip_whitelist.0' },
  ],
});
