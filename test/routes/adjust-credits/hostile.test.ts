/**
 * adjust-credits tried hostile: another team's key answers exactly as an
 * unknown one, a test-environment manager cannot reach a live key, two
 * grants at once both land, and the same Idempotency-Key sent twice at
 * once changes the balance once. No 5xx, nothing changed by a refusal.
 */
import { call, createKey, newTeam, teamPerSuite } from '../../support/api';
import { expectStatus } from '../../support/keys';

const team = teamPerSuite();

const remainingOf = async (keyId: string) => (await call('get-api-key', { key: team.key, query: { key_id: keyId } })).body.data.credits.remaining as number;

describe('POST /functions/v1/adjust-credits — hostile', () => {
  it('another team’s key answers 404 as an unknown one, and its credits do not move', async () => {
    // Prepare
    const key = await createKey(team, { credits: { remaining: 5 } });
    const other = await newTeam();

    // Act
    const foreign = await call('adjust-credits', { key: other.key, body: { key_id: key.id, add: 100, reason: 'x' } });
    const unknown = await call('adjust-credits', { key: other.key, body: { key_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', add: 100, reason: 'x' } });

    // Assess
    expectStatus(foreign, 404);
    expect(foreign.body.error.details).toEqual([{ field: 'key_id', issue: `not found: ${key.id}` }]);
    expect(unknown.body.error.details).toEqual([{ field: 'key_id', issue: 'not found: 01ARZ3NDEKTSV4RRFFQ69G5FAV' }]);
    expect(await remainingOf(key.id)).toBe(5);
  });

  it('a manager key of the test environment is refused on a live key, without change', async () => {
    // Prepare
    const key = await createKey(team, { credits: { remaining: 5 } });
    const tester = await newTeam('test');
    const testKey = await createKey({ key: team.key, teamId: team.teamId }, { environment: 'test', scopes: ['keys.manage', 'enc.*:read'] });

    // Act
    const refused = await call('adjust-credits', { key: testKey.key, body: { key_id: key.id, add: 100, reason: 'x' } });
    const otherTest = await call('adjust-credits', { key: tester.key, body: { key_id: key.id, add: 100, reason: 'x' } });

    // Assess
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(otherTest.status).toBeLessThan(500);
    expect(await remainingOf(key.id)).toBe(5);
  });

  it('two grants at once both land; the same Idempotency-Key twice at once adds once', async () => {
    // Prepare
    const key = await createKey(team, { credits: { remaining: 0 } });
    const grant = (n: number, headers: Record<string, string> = {}) =>
      call('adjust-credits', { key: team.key, body: { key_id: key.id, add: n, reason: 'race' }, headers });

    // Act
    const both = await Promise.all([grant(3), grant(4)]);
    const twins = await Promise.all([grant(10, { 'Idempotency-Key': 'same' }), grant(10, { 'Idempotency-Key': 'same' })]);

    // Assess
    expect(both.map((answer) => answer.status)).toEqual([200, 200]);
    expect(twins.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    expect(await remainingOf(key.id)).toBe(17);
  });
});
