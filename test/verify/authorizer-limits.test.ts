/**
 * The platform authorizer meters as the verify endpoint does (docs/limits.md):
 * a route's cost from the route table, scoped limits counted by the scope
 * the route needs, refusals as a Deny of the stage with the code, and the
 * figures flattened into the context of an Allow.
 */
import { call, createKey, teamPerSuite } from '../support/api';
import { authorizerWith, routeScopesFromEnv } from '../../lambda/handlers/authorizer';
import { testServices } from '../support/services';
import { callAuthorizer } from './helpers';

const ROUTES = routeScopesFromEnv({
  AUTHORIZER_ROUTE_SCOPES: JSON.stringify({
    'GET /tiles/*': { scope: 'enc.tiles:read', cost: 2 },
    'GET /charts/*': 'enc.charts:read',
  }),
});

describe('Lambda REQUEST authorizer — named limits and credits', () => {
  const team = teamPerSuite();
  const authorizer = authorizerWith(() => ROUTES, testServices);

  it('charges the route’s cost, counts scoped limits by the route’s scope, and denies USAGE_EXCEEDED without consuming', async () => {
    // Prepare
    const key = await createKey(team, {
      scopes: ['enc.tiles:read', 'enc.charts:read'],
      credits: { remaining: 5 },
      limits: [{ name: 'charts', limit: 1, window_seconds: 3600, scope: 'enc.charts:read' }],
    });
    const as = (resource: string) => callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${key.key}` }, resource });

    // Act
    const tiles = [await as('GET/tiles/1'), await as('GET/tiles/2'), await as('GET/tiles/3')];
    const charts = [await as('GET/charts/1'), await as('GET/charts/2')];

    // Assess: 5 credits pay two tiles calls (2 each); the third is refused and spends nothing, so one chart call (cost 1) still passes
    expect(tiles.map(({ result }) => result?.context?.code ?? 'VALID')).toEqual(['VALID', 'VALID', 'USAGE_EXCEEDED']);
    expect(tiles[1]?.result?.context).toMatchObject({ credits_remaining: 1 });
    expect(tiles[2]?.result?.context).toEqual({ code: 'USAGE_EXCEEDED', credits_remaining: 1 });
    expect(tiles[0]?.result?.context?.limit_key_charts_remaining).toBeUndefined();
    expect(charts[0]?.result?.context).toMatchObject({ credits_remaining: 0, limit_key_charts_limit: 1, limit_key_charts_remaining: 0 });
    expect(charts[1]?.result?.context).toMatchObject({ code: 'RATE_LIMITED', retry_after: expect.any(Number) });
    const read = await call('get-api-key', { key: team.key, query: { key_id: key.id } });
    expect(read.body.data.credits.remaining).toBe(0);
  });

  it('a key of an identity with credits is charged to the identity', async () => {
    // Prepare
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'authorized', credits: { remaining: 2 } } });
    const key = await createKey(team, { scopes: ['enc.tiles:read'], identity_id: made.body.data.id });

    // Act
    const first = await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${key.key}` }, resource: 'GET/tiles/1' });
    const second = await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${key.key}` }, resource: 'GET/tiles/1' });

    // Assess
    expect(first.result?.context).toMatchObject({ identity_id: made.body.data.id, credits_remaining: 0 });
    expect(second.result?.context).toEqual({ code: 'USAGE_EXCEEDED', credits_remaining: 0 });
  });

  it('refuses a route table whose cost is not a whole number from 0 to 1000', () => {
    expect(() => routeScopesFromEnv({ AUTHORIZER_ROUTE_SCOPES: JSON.stringify({ 'GET /a': { scope: 'enc.tiles:read', cost: -1 } }) })).toThrow(/cost -1/);
    expect(() => routeScopesFromEnv({ AUTHORIZER_ROUTE_SCOPES: JSON.stringify({ 'GET /a': { scope: 'enc.tiles:read', cost: 1.5 } }) })).toThrow(/cost 1.5/);
    expect(() => routeScopesFromEnv({ AUTHORIZER_ROUTE_SCOPES: JSON.stringify({ 'GET /a': { scope: 'enc.tiles:read', price: 1 } }) })).toThrow(/price/);
  });
});
