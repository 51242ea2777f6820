/**
 * Idempotency-Key on create and regenerate (replay, reuse for another body,
 * concurrent twins, no value stored), metering of every authenticated
 * request whatever its outcome, the RateLimit headers and the RFC 6750
 * challenges.
 */
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lambda/composition/config';
import { documentClient } from '../../lambda/composition/dynamo';
import { call, createKey, newTeam } from '../support/api';
import { runCommonManagementTests } from '../support/management-matrix';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest } from '../support/keys';
import { teamKeyCount, usageItem, auditRecordsOfType } from '../support/store';

manualClockPerTest();

const body = (teamId: string, name = 'Idempotent') => ({ name, type: 'sk', environment: 'live', team_id: teamId });

/**
 * Every idempotency record the key table holds for a calling key: the whole
 * scan, page by page (a Scan page stops at 1 MB before the filter, and the
 * run's shared table outgrows one page).
 */
async function idempotencyRecordsOf(callerKeyId: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const pages = paginateScan(
    { client: documentClient() },
    {
      TableName: config.keyTableName,
      FilterExpression: 'begins_with(pk, :prefix)',
      ExpressionAttributeValues: { ':prefix': `IDEMPOTENCY#${callerKeyId}#` },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) found.push(...(page.Items ?? []));
  return found;
}

describe('Idempotency-Key', () => {
  it('a retried create replays the first answer with the value null, creating nothing', async () => {
    // Prepare
    const team = await newTeam();
    const headers = { 'Idempotency-Key': 'order-4711' };

    // Act
    const first = await call('generate-api-key', { key: team.key, body: body(team.teamId), headers });
    const retry = await call('generate-api-key', { key: team.key, body: { ...body(team.teamId) }, headers });

    // Assess
    expectStatus(first, 201);
    expectStatus(retry, 201);
    expect(retry.headers['Idempotent-Replayed']).toBe('true');
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();
    expect(retry.body).toEqual({ ...first.body, data: { ...first.body.data, key: null } });
    expect(await teamKeyCount(team.teamId)).toBe(2);
    const records = await idempotencyRecordsOf(team.keyId);
    expect(records).toHaveLength(1);
    expect(JSON.stringify(records)).not.toContain(first.body.data.key);
    expect(records[0]).toMatchObject({ status: 201, ttl: expect.any(Number) });
  });

  it('the same key with another body → 422 IDEMPOTENCY_KEY_REUSED, nothing created', async () => {
    const team = await newTeam();
    const headers = { 'Idempotency-Key': 'order-4712' };
    expectStatus(await call('generate-api-key', { key: team.key, body: body(team.teamId, 'A'), headers }), 201);
    const reused = await call('generate-api-key', { key: team.key, body: body(team.teamId, 'B'), headers });
    expectStatus(reused, 422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await teamKeyCount(team.teamId)).toBe(2);
  });

  it('two concurrent creates with the same key create one key; both answer 201, one of them replayed', async () => {
    for (let round = 0; round < 5; round++) {
      const team = await newTeam();
      const headers = { 'Idempotency-Key': `concurrent-${round}` };
      const answers = await Promise.all([1, 2].map(() => call('generate-api-key', { key: team.key, body: body(team.teamId), headers })));
      expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
      expect(answers.filter((answer) => answer.headers['Idempotent-Replayed'] === 'true')).toHaveLength(1);
      expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
      expect(await teamKeyCount(team.teamId)).toBe(2);
    }
  });

  it('a retried regenerate replays instead of answering 409, and rolls the key once', async () => {
    const team = await newTeam();
    const target = await createKey(team);
    const headers = { 'Idempotency-Key': 'roll-1' };
    const first = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id }, headers });
    const retry = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id }, headers });
    expectStatus(first, 200);
    expectStatus(retry, 200);
    expect(retry.body).toEqual({ ...first.body, new_key: null });
    expect(await auditRecordsOfType(target.id, 'key.regenerated')).toHaveLength(1);
  });

  it('keys are per calling key: another manager may use the same Idempotency-Key', async () => {
    const team = await newTeam();
    const other = await createKey(team, { scopes: MANAGER_SCOPES });
    const headers = { 'Idempotency-Key': 'shared' };
    expectStatus(await call('generate-api-key', { key: team.key, body: body(team.teamId), headers }), 201);
    const second = await call('generate-api-key', { key: other.key, body: body(team.teamId), headers });
    expectStatus(second, 201);
    expect(second.headers['Idempotent-Replayed']).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
    ['a control character', 'a\u0001b'],
  ])('an Idempotency-Key %s → 400 naming the header', async (_name, value) => {
    const team = await newTeam();
    const response = await call('generate-api-key', { key: team.key, body: body(team.teamId), headers: { 'Idempotency-Key': value } });
    expectStatus(response, 400);
    expect(response.body.error.details).toEqual([{ field: 'Idempotency-Key', issue: 'must be 1 to 255 printable ASCII characters' }]);
  });
});

describe('metering: every authenticated request is a use', () => {
  it('malformed requests hit the rate limit like any other: 400 until the limit, then 429 with Retry-After', async () => {
    // Prepare: a manager limited to 5 requests per hour
    const team = await newTeam();
    const limited = await createKey(team, { scopes: MANAGER_SCOPES, rate_limit: 5 });

    // Act
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await call('generate-api-key', { key: limited.key, rawBody: '{not json' }));

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    expect(answers[5].headers['Retry-After']).toMatch(/^\d+$/);
    expect(answers[5].headers.RateLimit).toMatch(/^"hourly";r=0;t=\d+$/);
    expect((await usageItem(limited.id))?.total_requests).toBe(8);
  });

  it('a 403 (a key without keys.manage) counts as a use too', async () => {
    const team = await newTeam();
    const reader = await createKey(team, { scopes: ['enc.*:read'] });
    const response = await call('get-api-key', { key: reader.key, query: { key_id: team.keyId } });
    expectStatus(response, 403);
    expect(response.headers['WWW-Authenticate']).toBe('Bearer realm="api-keys", error="insufficient_scope", scope="keys.manage"');
    expect((await usageItem(reader.id))?.total_requests).toBe(1);
  });

  it('every metered answer carries RateLimit-Policy and RateLimit, counting down', async () => {
    const team = await newTeam();
    const caller = await createKey(team, { scopes: MANAGER_SCOPES, rate_limit: 10 });
    const first = await call('get-api-key', { key: caller.key, query: { key_id: caller.id } });
    const second = await call('get-api-key', { key: caller.key, query: { key_id: 'bad' } });
    expect(first.headers['RateLimit-Policy']).toBe('"hourly";q=10;w=3600');
    expect(first.headers.RateLimit).toMatch(/^"hourly";r=9;t=\d+$/);
    expect(second.status).toBe(400);
    expect(second.headers.RateLimit).toMatch(/^"hourly";r=8;t=\d+$/);
  });

  it('a 401 carries error="invalid_token" and counts for nobody', async () => {
    const response = await call('list-api-keys', { key: 'svc_sk_live_00000000_notakey', query: { team_id: '00000000-0000-0000-0000-000000000000' } });
    expectStatus(response, 401);
    expect(response.headers['WWW-Authenticate']).toBe('Bearer realm="api-keys", error="invalid_token"');
    expect(response.headers.RateLimit).toBeUndefined();
  });
});

runCommonManagementTests({ endpoint: 'list-audit-events', requestFor: (keyId) => ({ query: { key_id: keyId } }), success: 200, readsDeletedKeys: true });
