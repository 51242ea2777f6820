/**
 * Optimistic concurrency on a key: get-api-key and update-api-key answer
 * with an ETag (the key's revision); update, regenerate and delete sent
 * with If-Match change the key only while it is still at that revision,
 * else 412 and nothing changes but the caller's use.
 */
import { preconditionOf } from '../../lambda/http/preconditions';
import { call, createKey, teamPerSuite, type CallResult } from '../support/api';
import { checkValue, expectOnlyOneUse, expectStatus, storedKeyState } from '../support/keys';
import { auditRecordsOf } from '../support/store';

const etagOf = (response: CallResult) => response.headers.ETag;

describe('If-Match: the header read', () => {
  const of = (...values: string[]) => preconditionOf({ multiValueHeaders: { 'If-Match': values } });

  it.each([
    [['"3"'], { any: false, tags: ['"3"'], weak: [] }],
    [['"3", "4"'], { any: false, tags: ['"3"', '"4"'], weak: [] }],
    [['"3"', '"5"'], { any: false, tags: ['"3"', '"5"'], weak: [] }],
    [['W/"3"'], { any: false, tags: [], weak: ['"3"'] }],
    [['W/"3", "4"'], { any: false, tags: ['"4"'], weak: ['"3"'] }],
    [['"a,b"'], { any: false, tags: ['"a,b"'], weak: [] }],
    [['*'], { any: true }],
  ])('%j → %j', (values, expected) => {
    expect(of(...values)).toEqual(expected);
  });

  it('no header → no condition', () => {
    expect(preconditionOf({ multiValueHeaders: {} })).toBeUndefined();
    expect(preconditionOf({ headers: { 'if-match': '"1"' } })).toEqual({ any: false, tags: ['"1"'], weak: [] });
  });

  it.each([
    ['unquoted', '3'],
    ['unterminated', '"3'],
    ['no comma', '"3" "4"'],
    ['* in a list', '*, "3"'],
    ['empty', ''],
    ['an empty member', '"3",,'],
    ['over 1,024 characters', `"${'x'.repeat(1100)}"`],
  ])('%s → 400 naming If-Match', (_label, value) => {
    expect(() => of(value)).toThrow(expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'If-Match' })] }));
  });
});

describe('ETag and If-Match on a key', () => {
  const team = teamPerSuite();

  it('get and update answer the key’s ETag; every change moves it, a use does not', async () => {
    // Prepare
    const target = await createKey(team);
    const read = async () => etagOf(await call('get-api-key', { key: team.key, query: { key_id: target.id } }));

    // Act
    const first = await read();
    await checkValue(target.key);
    const afterUse = await read();
    const updated = await call('update-api-key', { key: team.key, body: { key_id: target.id, name: 'Renamed' } });
    const afterUpdate = await read();
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, revoke_immediately: true } }), 200);
    const afterRegenerate = await read();

    // Assess
    expect(first).toMatch(/^"\d+"$/);
    expect(afterUse).toBe(first);
    expect(etagOf(updated)).toBe(afterUpdate);
    expect(new Set([first, afterUpdate, afterRegenerate]).size).toBe(3);
  });

  it('update with the ETag as read → 200 and a new ETag; the same If-Match again → 412 with the current ETag, nothing changes but the caller’s use', async () => {
    // Prepare
    const target = await createKey(team);
    const tag = etagOf(await call('get-api-key', { key: team.key, query: { key_id: target.id } }));

    // Act
    const first = await call('update-api-key', {
      key: team.key,
      headers: { 'If-Match': tag },
      body: { key_id: target.id, scopes: ['enc.tiles:read', 'enc.*:read'] },
    });
    const before = await storedKeyState(target.id);
    const callerBefore = await storedKeyState(team.keyId);
    const auditBefore = await auditRecordsOf(target.id);
    const second = await call('update-api-key', { key: team.key, headers: { 'If-Match': tag }, body: { key_id: target.id, scopes: ['enc.tiles:read'] } });

    // Assess
    expectStatus(first, 200);
    expectStatus(second, 412);
    expect(second.body.error).toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: `The key changed since it was read: If-Match does not match the key's ETag ${etagOf(first)}. Read it again, then send the change again if it still applies.`,
      details: [{ field: 'If-Match', issue: `does not match the key's ETag ${etagOf(first)}` }],
    });
    expect(etagOf(second)).toBe(etagOf(first));
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(await auditRecordsOf(target.id)).toEqual(auditBefore);
    expectOnlyOneUse(callerBefore, await storedKeyState(team.keyId));
  });

  it('If-Match * or a list holding the current tag → 200; a weak tag never matches', async () => {
    // Prepare
    const target = await createKey(team);
    const tag = etagOf(await call('get-api-key', { key: team.key, query: { key_id: target.id } }));

    // Act
    const weak = await call('update-api-key', { key: team.key, headers: { 'If-Match': `W/${tag}` }, body: { key_id: target.id, name: 'Weak' } });
    const listed = await call('update-api-key', { key: team.key, headers: { 'If-Match': `"999", ${tag}` }, body: { key_id: target.id, name: 'Listed' } });
    const any = await call('update-api-key', { key: team.key, headers: { 'If-Match': '*' }, body: { key_id: target.id, name: 'Any' } });

    // Assess
    expect([weak.status, listed.status, any.status]).toEqual([412, 200, 200]);
    expect(weak.body.error.message).toBe(
      `If-Match named the key's ETag as a weak tag (W/${tag}), which never matches: send it as the ETag header gave it, ${tag}.`,
    );
    expect(any.body.data.name).toBe('Any');
  });

  it('regenerate and delete with a stale If-Match → 412; the key keeps its value and keeps working', async () => {
    // Prepare
    const target = await createKey(team);
    const stale = etagOf(await call('get-api-key', { key: team.key, query: { key_id: target.id } }));
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: target.id, description: 'changed by someone else' } }), 200);
    const before = await storedKeyState(target.id);

    // Act
    const regenerated = await call('regenerate-api-key', { key: team.key, headers: { 'If-Match': stale }, body: { key_id: target.id } });
    const deleted = await call('delete-api-key', { key: team.key, headers: { 'If-Match': stale }, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expect([regenerated.status, deleted.status]).toEqual([412, 412]);
    expect(await storedKeyState(target.id)).toEqual(before);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });
  });

  it('delete with the current ETag → 200', async () => {
    // Prepare
    const target = await createKey(team);
    const tag = etagOf(await call('get-api-key', { key: team.key, query: { key_id: target.id } }));

    // Act
    const deleted = await call('delete-api-key', { key: team.key, headers: { 'If-Match': tag }, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(deleted, 200);
    expect(await checkValue(target.key)).toMatchObject({ valid: false });
  });

  it('a malformed If-Match → 400 naming it; nothing changes', async () => {
    // Prepare
    const target = await createKey(team);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('update-api-key', { key: team.key, headers: { 'If-Match': '3' }, body: { key_id: target.id, name: 'Unquoted' } });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'If-Match', issue: 'must be * or a list of entity tags, such as "3"' }]);
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it('8 updates racing with the same If-Match: exactly one 200, the others 412; no change lost or doubled', async () => {
    // Prepare
    const target = await createKey(team);
    const tag = etagOf(await call('get-api-key', { key: team.key, query: { key_id: target.id } }));

    // Act
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('update-api-key', { key: team.key, headers: { 'If-Match': tag }, body: { key_id: target.id, name: `Racer ${i}` } }),
      ),
    );

    // Assess
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    const winner = answers.find((answer) => answer.status === 200);
    const stored = (await call('get-api-key', { key: team.key, query: { key_id: target.id } })).body.data;
    expect(stored.name).toBe(winner?.body.data.name);
    const renames = (await auditRecordsOf(target.id)).filter((record) => record.event_type === 'key.updated');
    expect(renames).toHaveLength(1);
  });
});
