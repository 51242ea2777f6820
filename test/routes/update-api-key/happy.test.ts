/**
 * Editing keys: every editable field, on the key and on its lookups; disable
 * and enable (every value stops and starts at once); the audit record with
 * before and after; values equal to the stored ones change nothing.
 */
import { call, createKey, newTeam } from '../../support/api';
import { MANAGER_SCOPES, checkValue, expectStatus, manualClockPerTest, storedKeyState } from '../../support/keys';
import { auditRecordsOf, keyItem, lookupItemOf } from '../../support/store';
import { callVerify } from '../../verify/helpers';
import { smokeTest } from '../../support/route-fixtures';

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

// Its fixture's valid request (lambda/routes/update-api-key/fixture.ts) answers as documented.
smokeTest('update-api-key');
