/**
 * The Lambda REQUEST authorizer: Allow/Deny/Unauthorized, its context and
 * usage-plan identifier, and policies that stay right when API Gateway
 * caches them per key.
 */
import type { APIGatewayAuthorizerResult, Statement } from 'aws-lambda';
import { call, createKey, teamPerSuite } from '../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { teamItem, usageItem } from '../support/store';
import { authorizerWith, routeScopesFromEnv } from '../../lambda/handlers/authorizer';
import { presentedValue } from '../../lambda/http/authentication';
import { testServices } from '../support/services';
import { authorizerEvent, callAuthorizer, METHOD_ARN_PREFIX } from './helpers';

/** IAM evaluation of an authorizer policy for `METHOD/path`: an explicit Deny wins, else an Allow is needed. */
function allows(result: APIGatewayAuthorizerResult | undefined, resource: string): boolean {
  if (!result) return false;
  const arn = METHOD_ARN_PREFIX + resource;
  const matches = (statement: Statement) =>
    ((statement as { Resource: string[] }).Resource ?? []).some((pattern) =>
      new RegExp(
        `^${pattern
          .split('*')
          .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ).test(arn),
    );
  const statements = result.policyDocument.Statement;
  if (statements.some((s) => s.Effect === 'Deny' && matches(s))) return false;
  return statements.some((s) => s.Effect === 'Allow' && matches(s));
}

const ROUTES = routeScopesFromEnv({
  AUTHORIZER_ROUTE_SCOPES: JSON.stringify({
    'GET /tiles/*': 'enc.tiles:read',
    'GET /charts/*': 'enc.charts:read',
    'POST /identify': 'interact.identify:read',
  }),
});

describe('Lambda REQUEST authorizer', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  describe('without a route table: any valid key, the whole stage', () => {
    const authorizer = authorizerWith(() => [], testServices);

    it('Allow with principalId, context and usageIdentifierKey = the team’s API Gateway key', async () => {
      const created = await createKey(team, { scopes: ['enc.tiles:read', 'enc.charts:read'], rate_limit: 10 });
      const { result, thrown } = await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${created.key}` } });
      expect(thrown).toBeUndefined();
      expect(result).toEqual({
        principalId: created.id,
        usageIdentifierKey: (await teamItem(team.teamId))?.usage_key,
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: [`${METHOD_ARN_PREFIX}*/*`] }],
        },
        context: {
          key_id: created.id,
          team_id: team.teamId,
          scopes: 'enc.tiles:read,enc.charts:read',
          key_type: 'sk',
          environment: 'live',
          ratelimit_limit: 10,
          ratelimit_remaining: 9,
          ratelimit_reset: expect.any(Number),
          value: 'current',
        },
      });
      for (const value of Object.values(result?.context ?? {})) expect(['string', 'number', 'boolean']).toContain(typeof value);
      expect((await usageItem(created.id))?.total_requests).toBe(1);
    });

    it('a key of an identity: the context also names the identity (identity_id, identity_external_id); a key of none has neither', async () => {
      // Prepare
      const identity = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'acme-authorized', meta: { plan: 'pro' } } });
      const member = await createKey(team, { identity_id: identity.body.data.id });
      const plain = await createKey(team);

      // Act
      const [ofMember, ofPlain] = [
        await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${member.key}` } }),
        await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${plain.key}` } }),
      ];

      // Assess
      expect(ofMember.result?.context).toMatchObject({ key_id: member.id, identity_id: identity.body.data.id, identity_external_id: 'acme-authorized' });
      expect(Object.keys(ofPlain.result?.context ?? {}).filter((name) => name.startsWith('identity'))).toEqual([]);
    });

    it('reads the key from x-api-key too, and header names in any case', async () => {
      const created = await createKey(team);
      const variants: Record<string, string>[] = [{ 'x-api-key': created.key }, { 'X-API-Key': created.key }, { authorization: `bearer ${created.key}` }];
      for (const headers of variants) {
        const { result } = await callAuthorizer(authorizer, { headers });
        expect(result?.principalId).toBe(created.id);
      }
      expect(presentedValue(authorizerEvent({ headers: { Authorization: 'Basic abc', 'x-api-key': created.key } }))).toBe(created.key);
    });

    it.each([
      ['no key', {}],
      ['an empty x-api-key', { 'x-api-key': '' }],
      ['a malformed value', { Authorization: 'Bearer nope' }],
      ['an unknown value', { Authorization: 'Bearer svc_sk_live_1b4e28ba_aaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ])('%s → Unauthorized (401)', async (_label, headers) => {
      expect(await callAuthorizer(authorizer, { headers })).toEqual({ thrown: 'Unauthorized' });
    });

    it('a valid key sent twice (two Authorization or two x-api-key headers) → Unauthorized: which credential counts would be ambiguous', async () => {
      const created = await createKey(team);
      for (const name of ['Authorization', 'x-api-key']) {
        const value = name === 'Authorization' ? `Bearer ${created.key}` : created.key;
        expect({ name, answer: await callAuthorizer(authorizer, { repeatedHeaders: { [name]: [value, value] } }) }).toEqual({
          name,
          answer: { thrown: 'Unauthorized' },
        });
      }
    });

    it('a deleted, expired or revoked key → Unauthorized (401)', async () => {
      const deleted = await createKey(team);
      expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: deleted.id, confirm_deletion: true } }), 200);
      const expiring = await createKey(team, { expires_at: new Date(Date.now() + 60_000).toISOString() });
      const rotated = await createKey(team);
      expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: rotated.id, revoke_immediately: true } }), 200);
      const clock = installManualClock();
      clock.advance(61_000);
      for (const value of [deleted.key, expiring.key, rotated.key]) {
        expect(await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${value}` } })).toEqual({ thrown: 'Unauthorized' });
      }
    });

    it('a source outside ip_whitelist → Deny for the whole stage (403), code in the context', async () => {
      const created = await createKey(team, { ip_whitelist: ['203.0.113.0/24'] });
      const { result } = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key }, sourceIp: '198.51.100.1' });
      expect(result?.policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: [`${METHOD_ARN_PREFIX}*/*`] }]);
      expect(result?.context).toEqual({ code: 'IP_NOT_ALLOWED' });
      expect(result?.usageIdentifierKey).toBeUndefined();
      const inside = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key }, sourceIp: '203.0.113.9' });
      expect(allows(inside.result, 'GET/tiles/1')).toBe(true);
    });

    it('a public key from a foreign origin → Deny', async () => {
      const created = await createKey(team, { type: 'pk', domains: ['https://maps.example.com'] });
      const foreign = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key, Origin: 'https://evil.example' } });
      expect(foreign.result?.context).toEqual({ code: 'ORIGIN_NOT_ALLOWED' });
      const own = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key, Origin: 'https://maps.example.com' } });
      expect(allows(own.result, 'GET/tiles/1')).toBe(true);
    });

    it('over the key’s rate limit → Deny for the whole stage with retry_after', async () => {
      const created = await createKey(team, { rate_limit: 1 });
      installManualClock();
      await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key } });
      const { result } = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key } });
      expect(allows(result, 'GET/tiles/1')).toBe(false);
      expect(result?.context).toEqual({ code: 'RATE_LIMITED', retry_after: expect.any(Number) });
      expect(result?.usageIdentifierKey).toBeUndefined();
    });
  });

  describe('with a route table (AUTHORIZER_ROUTE_SCOPES)', () => {
    const authorizer = authorizerWith(() => ROUTES, testServices);

    it('allows the routes whose scope the key holds and denies the rest, in one cacheable policy', async () => {
      const created = await createKey(team, { scopes: ['enc.*:read'] });
      const { result } = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key }, resource: 'GET/tiles/3/4/5' });
      expect(result?.usageIdentifierKey).toBe((await teamItem(team.teamId))?.usage_key);
      // The same cached policy answers every route right.
      expect(allows(result, 'GET/tiles/9')).toBe(true);
      expect(allows(result, 'GET/charts/1')).toBe(true);
      expect(allows(result, 'POST/identify')).toBe(false);
      expect(allows(result, 'DELETE/tiles/9')).toBe(false);
      expect(allows(result, 'GET/unmapped')).toBe(false);
    });

    it('a route needing a scope the key lacks → its policy (403 here), no use recorded', async () => {
      const created = await createKey(team, { scopes: ['enc.tiles:read'] });
      const { result } = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key }, resource: 'POST/identify' });
      expect(result?.context).toEqual({ code: 'SCOPE_DENIED' });
      expect(allows(result, 'POST/identify')).toBe(false);
      expect(allows(result, 'GET/tiles/1')).toBe(true);
      expect((await usageItem(created.id))?.total_requests).toBe(0);
    });

    it('a route in no entry is denied (fail closed)', async () => {
      const created = await createKey(team, { scopes: ['enc.*:read'] });
      const { result } = await callAuthorizer(authorizer, { headers: { 'x-api-key': created.key }, resource: 'GET/admin' });
      expect(result?.context).toEqual({ code: 'ROUTE_NOT_MAPPED' });
      expect(allows(result, 'GET/admin')).toBe(false);
    });

    it('AUTHORIZER_SCOPE is needed on every route, on top of the table', async () => {
      const both = authorizerWith(
        () => routeScopesFromEnv({ AUTHORIZER_SCOPE: 'enc.tiles:read', AUTHORIZER_ROUTE_SCOPES: '{"POST /identify": "enc.identify:read"}' }),
        testServices,
      );
      const identifyOnly = await createKey(team, { scopes: ['enc.identify:read'] });
      const full = await createKey(team, { scopes: ['enc.*:read'] });
      const denied = await callAuthorizer(both, { headers: { 'x-api-key': identifyOnly.key }, resource: 'POST/identify' });
      const allowed = await callAuthorizer(both, { headers: { 'x-api-key': full.key }, resource: 'POST/identify' });
      expect(allows(denied.result, 'POST/identify')).toBe(false);
      expect(allows(allowed.result, 'POST/identify')).toBe(true);
      expect(allows(allowed.result, 'GET/anything')).toBe(true);
    });

    it.each([
      [{ AUTHORIZER_ROUTE_SCOPES: 'not json' }, /JSON object/],
      [{ AUTHORIZER_ROUTE_SCOPES: '["GET /x"]' }, /JSON object/],
      [{ AUTHORIZER_ROUTE_SCOPES: '{"/tiles": "enc.tiles:read"}' }, /METHOD/],
      [{ AUTHORIZER_ROUTE_SCOPES: '{"GET /tiles": "everything"}' }, /not a valid scope/],
      [{ AUTHORIZER_SCOPE: 'enc' }, /not a valid scope/],
    ])('an invalid setting %p fails at cold start', async (env, message) => {
      expect(() => routeScopesFromEnv(env)).toThrow(message);
      const broken = authorizerWith(() => routeScopesFromEnv(env), testServices);
      expect((await callAuthorizer(broken, { headers: { 'x-api-key': 'x' } })).thrown).toMatch(message);
    });
  });
});
