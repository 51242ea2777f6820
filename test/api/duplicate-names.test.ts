/**
 * A JSON body that gives one name twice (`{"type":"sk","type":"pk"}`) is
 * refused: `JSON.parse` would keep the last value, where another reader of
 * the same body may keep the first. And a body declared in a charset other
 * than UTF-8 is refused rather than read as UTF-8.
 */
import fc from 'fast-check';
import { duplicateNames } from '../../lambda/http/duplicate-names';
import { call, createKey, teamPerSuite } from '../support/api';
import { checkValue, expectStatus, storedKeyState } from '../support/keys';
import { teamKeyCount } from '../support/store';
import { callVerify } from '../verify/helpers';

describe('duplicateNames', () => {
  it.each([
    ['{"type":"sk","type":"pk"}', ['type']],
    ['{"a":1,"b":2,"a":3,"b":4,"a":5}', ['a', 'b']],
    ['{"type":"sk","\\u0074ype":"pk"}', ['type']],
    ['{"a":{"b":1,"b":2}}', ['a.b']],
    ['{"a":{"b":1},"a":2}', ['a']],
    ['{"domains":[{"x":1},{"x":1,"x":2}]}', ['domains.1.x']],
    ['[{"k":1,"k":2}]', ['0.k']],
    ['{"k":1,"o":{"k":2},"l":[{"k":3}]}', []],
    ['{"name":"a\\"b:\\"c","description":"\\"name\\":1"}', []],
    ['{"key":"svc_sk_live_00000000_aaaa"}', []],
    ['{}', []],
    ['{"":1,"":2}', ['']],
  ])('%s → %j', (text, expected) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(duplicateNames(text)).toEqual(expected);
  });

  it('finds nothing in any JSON.stringify output, and finds a name given twice in any object of it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, name) => {
        const text = JSON.stringify({ value });
        expect(duplicateNames(text)).toEqual([]);
        const doubled = JSON.stringify({ [name]: 1, value }).replace(/^\{/, `{${JSON.stringify(name)}:0,`);
        expect(duplicateNames(doubled)).toContain(name);
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });
});

describe('a body that gives a name twice → 400, nothing done', () => {
  const team = teamPerSuite();

  it('create with "type" twice: no key is created', async () => {
    // Prepare
    const before = await teamKeyCount(team.teamId);
    const body = `{"name":"Twice","type":"sk","environment":"live","team_id":"${team.teamId}","type":"pk"}`;

    // Act
    const response = await call('generate-api-key', { key: team.key, rawBody: body });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'The request is invalid: type must be given once.',
      details: [{ field: 'type', issue: 'must be given once' }],
    });
    expect(await teamKeyCount(team.teamId)).toBe(before);
  });

  it('delete naming two keys: neither is deleted, both keep working', async () => {
    // Prepare
    const first = await createKey(team);
    const second = await createKey(team);
    const before = [await storedKeyState(first.id), await storedKeyState(second.id)];

    // Act
    const response = await call('delete-api-key', { key: team.key, rawBody: `{"key_id":"${first.id}","confirm_deletion":true,"key_id":"${second.id}"}` });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'key_id', issue: 'must be given once' }]);
    expect([await storedKeyState(first.id), await storedKeyState(second.id)]).toEqual(before);
    expect(await checkValue(first.key)).toMatchObject({ valid: true });
    expect(await checkValue(second.key)).toMatchObject({ valid: true });
  });

  it('verify with "key" twice → 400, whichever value is real', async () => {
    // Prepare
    const target = await createKey(team);
    const before = await storedKeyState(target.id);

    // Act
    const response = await callVerify(undefined, { rawBody: `{"key":"${target.key}","key":"nope"}` });

    // Assess
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'key', issue: 'must be given once' }]);
    expect(await storedKeyState(target.id)).toEqual(before);
  });

  it('a name shaped like a key value is not echoed', async () => {
    // Prepare
    const target = await createKey(team);

    // Act
    const response = await call('generate-api-key', { key: team.key, rawBody: `{"${target.key}":1,"${target.key}":2}` });

    // Assess
    expectStatus(response, 400);
    expect(JSON.stringify(response.body)).not.toContain(target.key);
  });
});

describe('Content-Type charset', () => {
  const team = teamPerSuite();

  it.each(['utf-16', 'iso-8859-1', '"utf-16le"'])('charset=%s → 415; no key is created', async (charset) => {
    // Prepare
    const before = await teamKeyCount(team.teamId);

    // Act
    const response = await call('generate-api-key', {
      key: team.key,
      headers: { 'Content-Type': `application/json; charset=${charset}` },
      body: { name: 'Charset', type: 'sk', environment: 'live', team_id: team.teamId },
    });

    // Assess
    expectStatus(response, 415);
    expect(response.body.error).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Content-Type charset must be utf-8 (or left out), got "${charset.replace(/"/g, '')}".`,
    });
    expect(await teamKeyCount(team.teamId)).toBe(before);
  });

  it.each(['utf-8', 'UTF-8', 'utf8', '"utf-8"'])('charset=%s is read', async (charset) => {
    // Act
    const response = await call('generate-api-key', {
      key: team.key,
      headers: { 'Content-Type': `application/json; charset=${charset}` },
      body: { name: 'Charset', type: 'sk', environment: 'live', team_id: team.teamId },
    });

    // Assess
    expectStatus(response, 201);
  });
});
