/**
 * The management routes' own authentication is counted in the verification
 * analytics (issue 46 point 1, docs/analytics.md): each request by the key
 * that made it, with the scope asked `keys.manage` and its outcome — VALID,
 * refused for this request (SCOPE_DENIED, IP_NOT_ALLOWED), over its limit
 * (RATE_LIMITED), or a key that no longer authenticates (INACTIVE) — once,
 * whether the handler authenticates itself or the management authorizer did.
 */
import { authorizeManagementCall } from '../../lambda/http/management-authorizer';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { MANAGER_SCOPES, expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { testServices } from '../support/services';
import { authorizerEvent } from '../verify/helpers';

type Row = { key_id: string; outcome: string; scope: string | null; count: number };

/** The team's counts in the minute of `at`, by key, outcome and scope (the read itself counted by its caller). */
async function countsOf(team: TestTeam, reader: string, at: string): Promise<Row[]> {
  const response = await call('get-verification-analytics', {
    key: reader,
    query: { team_id: team.teamId, from: at, to: at, granularity: 'minute', limit: '100' },
    repeatedQuery: { group_by: ['key', 'outcome', 'scope'] },
  });
  expectStatus(response, 200);
  return (response.body.data as Array<Row & { start: string }>).map(({ key_id, outcome, scope, count }) => ({ key_id, outcome, scope, count }));
}

describe('the management routes’ authentication, counted', () => {
  afterEach(() => restoreSystemClock());

  it('VALID, SCOPE_DENIED, IP_NOT_ALLOWED, RATE_LIMITED and INACTIVE, each by the key that made the request, scope keys.manage', async () => {
    // Arrange (10:00): a manager, a reader without keys.manage, a manager pinned to one address, a manager with rate_limit 2, a disabled manager
    installManualClock(Date.parse('2026-11-30T10:00:00Z'));
    const team = await newTeam();
    const reader = await createKey(team, { scopes: ['enc.*:read'] });
    const pinned = await createKey(team, { scopes: MANAGER_SCOPES, ip_whitelist: ['192.0.2.1'] });
    const capped = await createKey(team, { scopes: MANAGER_SCOPES, rate_limit: 2 });
    const disabled = await createKey(team, { scopes: MANAGER_SCOPES });
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: disabled.id, is_active: false } }), 200);
    installManualClock(Date.parse('2026-11-30T10:01:00Z'));
    const list = (key: string, sourceIp?: string) => call('list-api-keys', { key, query: { team_id: team.teamId }, ...(sourceIp ? { sourceIp } : {}) });

    // Act (10:01)
    expectStatus(await list(team.key), 200);
    expect((await list(reader.key)).status).toBe(403);
    expect((await list(pinned.key, '198.51.100.7')).status).toBe(403);
    const cappedAnswers = [await list(capped.key), await list(capped.key), await list(capped.key)].map((answer) => answer.status);
    expect((await list(disabled.key)).status).toBe(401);
    const rows = await countsOf(team, team.key, '2026-11-30T10:01:00Z');

    // Assess
    expect(cappedAnswers).toEqual([200, 200, 429]);
    const manage = 'keys.manage';
    expect(rows).toEqual(
      expect.arrayContaining([
        // The list, and the read that answers this (counted as it is authenticated).
        { key_id: team.keyId, outcome: 'VALID', scope: manage, count: 2 },
        { key_id: reader.id, outcome: 'SCOPE_DENIED', scope: manage, count: 1 },
        { key_id: pinned.id, outcome: 'IP_NOT_ALLOWED', scope: manage, count: 1 },
        { key_id: capped.id, outcome: 'VALID', scope: manage, count: 2 },
        { key_id: capped.id, outcome: 'RATE_LIMITED', scope: manage, count: 1 },
        { key_id: disabled.id, outcome: 'INACTIVE', scope: manage, count: 1 },
      ]),
    );
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(8);
  });

  it('behind the management authorizer: a refused key counted once by the authorizer, an allowed one once by the handler', async () => {
    // Arrange
    installManualClock(Date.parse('2026-11-30T11:00:00Z'));
    const team = await newTeam();
    const disabled = await createKey(team, { scopes: MANAGER_SCOPES });
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: disabled.id, is_active: false } }), 200);
    installManualClock(Date.parse('2026-11-30T11:01:00Z'));

    // Act: as API Gateway does, the authorizer first, then (when allowed) the handler with its context
    const allowed = await authorizeManagementCall(testServices(), authorizerEvent({ headers: { Authorization: `Bearer ${team.key}` } }));
    expectStatus(
      await call('list-api-keys', { key: team.key, query: { team_id: team.teamId }, authorizerContext: allowed.context as Record<string, unknown> }),
      200,
    );
    await expect(authorizeManagementCall(testServices(), authorizerEvent({ headers: { Authorization: `Bearer ${disabled.key}` } }))).rejects.toThrow(
      'Unauthorized',
    );
    const rows = await countsOf(team, team.key, '2026-11-30T11:01:00Z');

    // Assess: the list once (not in the authorizer too), the read itself, the refusal once
    expect(rows).toEqual(
      expect.arrayContaining([
        { key_id: team.keyId, outcome: 'VALID', scope: 'keys.manage', count: 2 },
        { key_id: disabled.id, outcome: 'INACTIVE', scope: 'keys.manage', count: 1 },
      ]),
    );
    expect(rows).toHaveLength(2);
  });
});
