/**
 * Regenerate, errors: strict body validation (400, with nothing changed),
 * a live transition (409), unknown or deleted keys (404), no credentials (401).
 */
import { call, createKey, newTeam } from '../support/api';
import {
  MANAGER_SCOPES,
  UNKNOWN_KEY_ID,
  checkValue,
  expectStatus,
  installManualClock,
  restoreSystemClock,
  storedKeyState,
} from '../support/keys';
import { auditRecordsOf } from '../support/store';

beforeEach(() => {
  installManualClock();
});

afterEach(() => {
  restoreSystemClock();
});

/** A key that will also be the caller, so its usage item shows whether the request was metered. */
async function selfManagingKey() {
  const team = await newTeam();
  const key = await createKey(team, { scopes: MANAGER_SCOPES });
  return { team, key };
}

describe('regenerate: invalid bodies are refused with 400 and change nothing', () => {
  const cases: Array<{ name: string; bodyFor: (keyId: string) => Record<string, unknown>; field: string; issue?: RegExp }> = [
    { name: 'grace_period_days 0', bodyFor: (id) => ({ key_id: id, grace_period_days: 0 }), field: 'grace_period_days' },
    { name: 'grace_period_days 31', bodyFor: (id) => ({ key_id: id, grace_period_days: 31 }), field: 'grace_period_days' },
    { name: 'grace_period_days -1', bodyFor: (id) => ({ key_id: id, grace_period_days: -1 }), field: 'grace_period_days' },
    { name: 'grace_period_days 1.5', bodyFor: (id) => ({ key_id: id, grace_period_days: 1.5 }), field: 'grace_period_days' },
    { name: 'grace_period_days "7" (a string)', bodyFor: (id) => ({ key_id: id, grace_period_days: '7' }), field: 'grace_period_days' },
    { name: 'grace_period_days null', bodyFor: (id) => ({ key_id: id, grace_period_days: null }), field: 'grace_period_days' },
    { name: 'revoke_immediately "true" (a string)', bodyFor: (id) => ({ key_id: id, revoke_immediately: 'true' }), field: 'revoke_immediately' },
    { name: 'revoke_immediately 1', bodyFor: (id) => ({ key_id: id, revoke_immediately: 1 }), field: 'revoke_immediately' },
    { name: 'an unknown field', bodyFor: (id) => ({ key_id: id, force: true }), field: '', issue: /force/ },
    { name: 'a misspelt field', bodyFor: (id) => ({ key_id: id, grace_days: 3 }), field: '', issue: /grace_days/ },
    { name: 'key_id missing', bodyFor: () => ({ grace_period_days: 7 }), field: 'key_id', issue: /required/ },
    { name: 'key_id lowercase', bodyFor: (id) => ({ key_id: id.toLowerCase() }), field: 'key_id' },
    { name: 'key_id one character short', bodyFor: (id) => ({ key_id: id.slice(1) }), field: 'key_id' },
    { name: 'key_id with a letter outside Crockford base32', bodyFor: (id) => ({ key_id: `U${id.slice(1)}` }), field: 'key_id' },
    { name: 'key_id a number', bodyFor: () => ({ key_id: 12345 }), field: 'key_id' },
    { name: 'key_id a value instead of an id', bodyFor: () => ({ key_id: 'svc_sk_live_0000000' }), field: 'key_id' },
  ];

  it.each(cases)('$name → 400 VALIDATION_FAILED naming the field', async ({ bodyFor, field, issue }) => {
    // Prepare
    const { key } = await selfManagingKey();
    const before = await storedKeyState(key.id);
    const auditBefore = await auditRecordsOf(key.id);

    // Act
    const response = await call('regenerate', { key: key.key, body: bodyFor(key.id) });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', request_id: expect.any(String) });
    const details: Array<{ field: string; issue: string }> = response.body.error.details;
    const matching = details.filter((detail) => detail.field === field && (!issue || issue.test(detail.issue)));
    expect({ details, matching: matching.length }).toMatchObject({ matching: 1 });
    expect(await storedKeyState(key.id)).toEqual(before);
    expect(await auditRecordsOf(key.id)).toEqual(auditBefore);
  });

  it('several problems at once are all listed', async () => {
    // Prepare
    const { key } = await selfManagingKey();

    // Act
    const response = await call('regenerate', {
      key: key.key,
      body: { key_id: 'nope', grace_period_days: 0, revoke_immediately: 'yes', extra: 1 },
    });

    // Assess
    expectStatus(response, 400);
    const fields = response.body.error.details.map((detail: { field: string }) => detail.field).sort();
    expect(fields).toEqual(['', 'grace_period_days', 'key_id', 'revoke_immediately']);
  });

  it.each([
    ['invalid JSON', '{"key_id": '],
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['a JSON string', '"01ARZ3NDEKTSV4RRFFQ69G5FAV"'],
  ])('%s → 400 and nothing changes', async (_name, rawBody) => {
    // Prepare
    const { key } = await selfManagingKey();
    const before = await storedKeyState(key.id);

    // Act
    const response = await call('regenerate', { key: key.key, rawBody });

    // Assess
    expectStatus(response, 400);
    expect(['INVALID_JSON', 'VALIDATION_FAILED']).toContain(response.body.error.code);
    expect(await storedKeyState(key.id)).toEqual(before);
  });
});

describe('regenerate: conflicts', () => {
  it('a second regenerate while the transition is live → 409 naming the transition end, and nothing changes', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const first = await call('regenerate', { key: team.key, body: { key_id: target.id, grace_period_days: 2 } });
    expectStatus(first, 200);
    const before = await storedKeyState(target.id);

    // Act
    const second = await call('regenerate', { key: team.key, body: { key_id: target.id } });

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
    expectStatus(await call('regenerate', { key: team.key, body: { key_id: target.id } }), 200);

    // Act
    const response = await call('regenerate', { key: team.key, body: { key_id: target.id, revoke_immediately: true } });

    // Assess
    expectStatus(response, 409);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });
});

describe('regenerate: unknown keys', () => {
  it('a well-formed id that no key has → 404 NOT_FOUND', async () => {
    // Prepare
    const team = await newTeam();

    // Act
    const response = await call('regenerate', { key: team.key, body: { key_id: UNKNOWN_KEY_ID } });

    // Assess
    expectStatus(response, 404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('a deleted key → 404, and no value is issued for it', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    expectStatus(await call('delete', { key: team.key, body: { key_id: target.id, confirm_deletion: true } }), 200);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('regenerate', { key: team.key, body: { key_id: target.id } });

    // Assess
    expectStatus(response, 404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(before.lookups).toEqual([]);
  });
});

describe('regenerate: authentication', () => {
  it('no Authorization header → 401 with WWW-Authenticate, and nothing changes', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('regenerate', { body: { key_id: target.id } });

    // Assess
    expectStatus(response, 401);
    expect(response.headers['WWW-Authenticate']).toMatch(/^Bearer/);
    expect(await storedKeyState(target.id)).toEqual(before);
  });
});
