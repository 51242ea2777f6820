/**
 * get-verification-analytics refuses what it cannot answer in the house
 * shape (400), answers another team's key or identity as an unknown one
 * (404), and the platform authorizer's decisions are counted as the verify
 * endpoint's are.
 */
import { call, createKey, newTeam, teamPerSuite, type TestTeam } from '../../support/api';
import { installManualClock, restoreSystemClock } from '../../support/keys';
import { authorizerWith, routeScopesFromEnv } from '../../../lambda/handlers/authorizer';
import { testServices } from '../../support/services';
import { callAuthorizer } from '../../verify/helpers';

const NOW = Date.parse('2026-11-29T12:00:30Z');

function ask(team: TestTeam, query: Record<string, string>, repeatedQuery?: Record<string, string[]>) {
  return call('get-verification-analytics', { key: team.key, query: { team_id: team.teamId, ...query }, ...(repeatedQuery ? { repeatedQuery } : {}) });
}

describe('GET /functions/v1/get-verification-analytics — refusals', () => {
  const team = teamPerSuite();
  beforeEach(() => installManualClock(NOW));
  afterEach(() => restoreSystemClock());

  it.each([
    ['`from` after `to`', { from: '2026-11-29T12:00:00Z', to: '2026-11-29T11:00:00Z', granularity: 'minute' }, 'from', 'must not be after `to`'],
    [
      'minutes older than 24 hours',
      { from: '2026-11-28T11:00:00Z', to: '2026-11-28T12:00:00Z', granularity: 'minute' },
      'from',
      'must be within the last 24 hours',
    ],
    ['hours older than 90 days', { from: '2026-08-01T00:00:00Z', to: '2026-08-02T00:00:00Z', granularity: 'hour' }, 'from', 'must be within the last 90 days'],
    ['more than 1,000 buckets', { from: '2026-11-28T12:10:00Z', to: '2026-11-29T12:00:00Z', granularity: 'minute' }, 'to', 'at most 1000 buckets'],
    [
      'a granularity it does not know',
      { from: '2026-11-29T11:00:00Z', to: '2026-11-29T12:00:00Z', granularity: 'week' },
      'granularity',
      'must be "minute", "hour" or "day"',
    ],
    ['a time without an offset', { from: '2026-11-29T11:00:00', to: '2026-11-29T12:00:00Z', granularity: 'hour' }, 'from', expect.stringContaining('ISO 8601')],
    [
      'a limit out of range',
      { from: '2026-11-29T11:00:00Z', to: '2026-11-29T12:00:00Z', granularity: 'hour', limit: '101' },
      'limit',
      'must be a whole number from 1 to 100',
    ],
  ])('%s → 400 naming the field', async (_case, query, field, issue) => {
    const answer = await ask(team, query);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    expect(answer.body.error.details).toEqual([{ field, issue }]);
  });

  it('group_by may be given once per dimension (an unknown one is 400); any other parameter given twice is 400', async () => {
    const range = { from: '2026-11-29T11:00:00Z', to: '2026-11-29T12:00:00Z', granularity: 'hour' };
    expect((await ask(team, range, { group_by: ['outcome', 'key'] })).status).toBe(200);
    const unknown = await ask(team, range, { group_by: ['outcome', 'colour'] });
    expect([unknown.status, unknown.body.error.details[0].field]).toEqual([400, 'group_by.1']);
    const twice = await ask(team, { ...range }, { granularity: ['hour', 'day'] });
    expect([twice.status, twice.body.error.details]).toEqual([400, [{ field: 'granularity', issue: 'must be given once' }]]);
  });

  it('another team’s key, identity or team: answered as an unknown one (404), or refused (403)', async () => {
    const other = await newTeam();
    const theirKey = await createKey(other);
    const theirIdentity = await call('create-identity', { key: other.key, body: { team_id: other.teamId, external_id: 'theirs' } });
    const range = { from: '2026-11-29T11:00:00Z', to: '2026-11-29T12:00:00Z', granularity: 'hour' };
    const neverIssued = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

    const [foreign, unknown] = [await ask(team, { ...range, key_id: theirKey.id }), await ask(team, { ...range, key_id: neverIssued })];
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.details).toEqual([{ field: 'key_id', issue: `not found: ${theirKey.id}` }]);
    expect(unknown.status).toBe(404);
    expect((await ask(team, { ...range, identity_id: theirIdentity.body.data.id as string })).status).toBe(404);
    const otherTeam = await ask(team, { ...range, team_id: other.teamId });
    expect([otherTeam.status, otherTeam.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('a test key', () => {
  const team = teamPerSuite('test');
  beforeEach(() => installManualClock(NOW));
  afterEach(() => restoreSystemClock());

  it('reads one of its keys, not the team’s rows (which name its live keys): 403 naming team_id', async () => {
    const key = await createKey(team, { environment: 'test' });
    const range = { from: '2026-11-29T11:00:00Z', to: '2026-11-29T12:00:00Z', granularity: 'hour' };

    const whole = await ask(team, range);
    const one = await ask(team, { ...range, key_id: key.id });

    expect([whole.status, whole.body.error.code, whole.body.error.details]).toEqual([
      403,
      'FORBIDDEN',
      [{ field: 'team_id', issue: 'needs a live key; a test key may pass key_id' }],
    ]);
    expect(one.status).toBe(200);
  });
});

describe('the platform authorizer’s decisions are counted', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  it('VALID, SCOPE_DENIED and INACTIVE through the authorizer, with the scopes of the routes matched', async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-29T13:00:10Z'));
    const routes = routeScopesFromEnv({ AUTHORIZER_ROUTE_SCOPES: JSON.stringify({ 'GET /tiles/*': 'enc.tiles:read', 'GET /charts/*': 'enc.charts:read' }) });
    const authorizer = authorizerWith(() => routes, testServices);
    const key = await createKey(team, { scopes: ['enc.tiles:read'] });
    const as = (resource: string) => callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${key.key}` }, resource });

    // Act
    await as('GET/tiles/1');
    await as('GET/tiles/2');
    await as('GET/charts/1');
    await call('update-api-key', { key: team.key, body: { key_id: key.id, is_active: false } });
    await as('GET/tiles/3');
    const answer = await ask(
      team,
      { key_id: key.id, from: '2026-11-29T13:00:00Z', to: '2026-11-29T13:00:59Z', granularity: 'minute' },
      { group_by: ['outcome', 'scope'] },
    );

    // Assess
    expect(answer.body.data).toEqual([
      { start: '2026-11-29T13:00:00.000Z', outcome: 'VALID', scope: 'enc.tiles:read', count: 2 },
      { start: '2026-11-29T13:00:00.000Z', outcome: 'INACTIVE', scope: 'enc.tiles:read', count: 1 },
      { start: '2026-11-29T13:00:00.000Z', outcome: 'SCOPE_DENIED', scope: 'enc.charts:read', count: 1 },
    ]);
  });
});
