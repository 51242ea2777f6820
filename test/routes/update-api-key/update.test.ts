/**
 * Editing keys: every editable field, disable and enable (every value stops
 * and starts at once), the validation a create applies, the last-manager
 * guard, the audit record with before and after, and races with regenerate
 * and delete that never lose an update.
 */
import { encodeCursor as encodeWith } from '../../../lambda/platform/cursor';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam } from '../../support/api';
import { runCommonManagementTests } from '../../support/management-matrix';
import { MANAGER_SCOPES, checkValue, expectOnlyOneUse, expectStatus, manualClockPerTest, storedKeyState, useValue } from '../../support/keys';
import { auditRecordsOf, keyItem, lookupItemOf } from '../../support/store';
import { callVerify } from '../../verify/helpers';

const clock = manualClockPerTest();

describe('update-api-key: changes', () => {
  it('changes every editable field on the key and on its lookup, answers the key as it now is', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { type: 'pk', domains: ['https://a.example.com'] });
    const expiresAt = new Date(clock().now().getTime() + 86_400_000).toISOString();
    const changes = {
      name: '  Renamed  ',
      description: 'now documented',
      scopes: ['enc.tiles:read', 'enc.layers:read'],
      domains: ['https://b.example.com'],
      ip_whitelist: ['203.0.113.0/24'],
      rate_limit: 77,
      expires_at: expiresAt,
      on_leak: 'disable',
    };
    clock().advance(1000);

    // Act
    const response = await call('update-api-key', { key: team.key, body: { key_id: target.id, ...changes } });

    // Assess
    expectStatus(response, 200);
    const expected = { ...changes, name: 'Renamed', updated_at: clock().now().toISOString(), state: 'active' };
    expect(response.body.data).toMatchObject(expected);
    expect(await keyItem(target.id)).toMatchObject({ ...expected, revision: 2 });
    expect(await lookupItemOf(target.key)).toMatchObject({
      name: 'Renamed',
      scopes: changes.scopes,
      domains: changes.domains,
      ip_whitelist: changes.ip_whitelist,
      rate_limit: 77,
      expires_at: expiresAt,
    });
    expect(response.headers['RateLimit-Policy']).toMatch(/^"hourly";q=\d+;w=3600$/);
  });

  it('writes one key.updated record with each changed field before and after, and the actor', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { name: 'Before', rate_limit: 10 });

    // Act
    const response = await call('update-api-key', {
      key: team.key,
      body: { key_id: target.id, name: 'After', rate_limit: 10, description: 'x' },
      headers: { 'User-Agent': 'console/1.0' },
    });

    // Assess
    expectStatus(response, 200);
    const updates = (await auditRecordsOf(target.id)).filter((record) => String(record.event_type).startsWith('key.updated'));
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      event_type: 'key.updated',
      changes: { name: { before: 'Before', after: 'After' }, description: { before: '', after: 'x' } },
      actor: { key_id: team.keyId, user_agent: 'console/1.0', request_id: response.headers['X-Request-Id'] },
    });
    // rate_limit was sent unchanged: not a change.
    expect(Object.keys(updates[0].changes as object).sort()).toEqual(['description', 'name']);
  });

  it('disable stops every value at once (verify INACTIVE, management 401), enable brings them back; both audited', async () => {
    // Prepare: a manager in a transition, so two values authenticate
    const team = await newTeam();
    const target = await createKey(team, { scopes: MANAGER_SCOPES });
    const rolled = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });
    const newValue: string = rolled.body.new_key;

    // Act
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: target.id, is_active: false } }), 200);
    const verifiedOld = await callVerify({ key: target.key });
    const verifiedNew = await callVerify({ key: newValue });
    const managing = await call('get-api-key', { key: newValue, query: { key_id: team.keyId } });
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: target.id, is_active: true } }), 200);

    // Assess
    expect([verifiedOld.body.code, verifiedNew.body.code]).toEqual(['INACTIVE', 'INACTIVE']);
    expectStatus(managing, 401);
    expect(managing.headers['WWW-Authenticate']).toContain('error="invalid_token"');
    expect((await checkValue(target.key)).valid).toBe(true);
    expect((await checkValue(newValue)).valid).toBe(true);
    const kinds = (await auditRecordsOf(target.id)).map((record) => record.event_type);
    expect(kinds).toEqual(expect.arrayContaining(['key.disabled', 'key.enabled']));
    const disabled = (await auditRecordsOf(target.id)).find((record) => record.event_type === 'key.disabled');
    expect(disabled?.changes).toEqual({ is_active: { before: true, after: false } });
  });

  it('values equal to the stored ones change nothing and write no record', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { name: 'Same' });
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('update-api-key', { key: team.key, body: { key_id: target.id, name: 'Same' } });

    // Assess
    expectStatus(response, 200);
    expect((await storedKeyState(target.id)).key).toEqual(before.key);
    expect((await auditRecordsOf(target.id)).map((record) => record.event_type)).toEqual(['key.created']);
  });
});

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

describe('list-api-keys: refusals', () => {
  it('another team’s team_id → 403', async () => {
    const team = await newTeam();
    const other = await newTeam();
    expectStatus(await call('list-api-keys', { key: team.key, query: { team_id: other.teamId } }), 403);
  });

  it('a test key asking for live keys → 403', async () => {
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    expectStatus(await call('list-api-keys', { key: testManager.key, query: { team_id: team.teamId, environment: 'live' } }), 403);
  });

  /** Signed with the service's key: the shape check refuses these. */
  const encodeCursor = (position: Record<string, string>) => encodeWith(position, config.cursorSigningKey);
  it.each([
    ['a cursor that is not base64 JSON', () => 'not-a-cursor!'],
    ['a cursor of another team', () => encodeCursor({ pk: 'KEY#X', sk: 'KEY', gsi1pk: 'TEAM#00000000-0000-0000-0000-000000000000', gsi1sk: 'KEY#X' })],
    ['a cursor with extra attributes', () => encodeCursor({ pk: 'a', sk: 'b', gsi1pk: 'c', gsi1sk: 'd', n: 'e' })],
  ])('%s → 400 naming cursor', async (_name, cursorFor) => {
    const team = await newTeam();
    const response = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, cursor: cursorFor() } });
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'cursor', issue: 'is not a cursor this listing returned' }]);
  });

  it.each([
    ['limit 0', { limit: '0' }, 'limit'],
    ['limit 101', { limit: '101' }, 'limit'],
    ['an unknown state', { state: 'sleeping' }, 'state'],
    ['an unknown parameter', { owner: 'me' }, 'owner'],
    ['a parameter named like a prototype member', { hasOwnProperty: '1' }, 'hasOwnProperty'],
  ])('%s → 400 naming %s', async (_name, query, field) => {
    const team = await newTeam();
    const response = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, ...query } });
    expectStatus(response, 400);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
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
