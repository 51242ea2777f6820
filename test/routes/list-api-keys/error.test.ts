/**
 * list-api-keys' refusals: another team's team_id, and a test key asking
 * for live keys (403). Forged cursors: test/routes/cursors.security.test.ts.
 */
import { encodeCursor as encodeWith } from '../../../lambda/platform/cursor';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam } from '../../support/api';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest } from '../../support/keys';

manualClockPerTest();

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
