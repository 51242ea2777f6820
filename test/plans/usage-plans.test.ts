/**
 * Usage plans: the management authorizer names the team's API Gateway key,
 * the local gateway stage throttles and counts quota per team (quota kept in
 * DynamoDB Local, by calendar period), bootstrap assigns and moves plans,
 * and the operator's AWS calls are exactly the ones API Gateway needs.
 */
import { randomUUID } from 'node:crypto';
import { mockClient } from 'aws-sdk-client-mock';
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fixture from '../fixtures/apigw-rest-event.json';
import { makeHandler as makeManagementAuthorizer } from '../../lambda/handlers/management-authorizer';
import { assignTeamPlan, localUsageKeys } from '../../lambda/handlers/bootstrap-team-key';
import { quotaPeriodOf } from '../../lambda/contract/plans';
import { MS_PER_DAY } from '../../lambda/platform/clock';
import { config } from '../../lambda/composition/config';
import { createDynamoClient } from '../../lambda/composition/dynamo';
import { apiGatewayUsageKeys, usagePlanIdsFrom } from '../../local/api-gateway-usage-keys';
import { ROUTES } from '../../lambda/routes';
import { THROTTLED_MESSAGE } from '../../lambda/contract/defaults';
import { createPlanGateway, plansFrom, type ManagementAuthorizer } from '../../local/usage-plans';
import { call, createKey, newTeam } from '../support/api';
import { manualClockPerTest } from '../support/keys';
import { testServices } from '../support/services';
import { teamItem, usageItem } from '../support/store';

const clock = manualClockPerTest();
const authorizer = makeManagementAuthorizer(testServices) as unknown as ManagementAuthorizer;
const PLANS = { default: { rateLimit: 1, burstLimit: 3, quota: { limit: 5, period: 'DAY' as const } }, gold: { rateLimit: 100, burstLimit: 100 } };

function managementEvent(
  key: string | undefined,
  route: { method: string; path: string } = { method: 'GET', path: '/functions/v1/list-api-keys' },
): APIGatewayProxyEvent {
  const headers: Record<string, string> = { ...fixture.headers };
  if (key) headers.Authorization = `Bearer ${key}`;
  return {
    ...fixture,
    httpMethod: route.method,
    path: route.path,
    resource: route.path,
    headers,
    requestContext: { ...fixture.requestContext, requestId: randomUUID() },
  } as unknown as APIGatewayProxyEvent;
}

function gateway() {
  return createPlanGateway({ plans: PLANS, authorizer, client: createDynamoClient(), keyTableName: config.keyTableName, clock: clock() });
}

describe('management authorizer', () => {
  it('names the team’s API Gateway key and plan; refuses a missing or unknown key with Unauthorized', async () => {
    const team = await newTeam();
    const event = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:1:api/prod/GET/functions/v1/list-api-keys',
      headers: { Authorization: `Bearer ${team.key}` },
    };
    const result = await authorizer(event as never, {} as Context);
    expect(result).toMatchObject({
      principalId: team.keyId,
      usageIdentifierKey: (await teamItem(team.teamId))?.usage_key,
      context: { key_id: team.keyId, team_id: team.teamId, plan: 'default' },
      policyDocument: { Statement: [{ Effect: 'Allow', Resource: event.methodArn }] },
    });
    await expect(authorizer({ ...event, headers: {} } as never, {} as Context)).rejects.toThrow('Unauthorized');
    await expect(authorizer({ ...event, headers: { Authorization: 'Bearer svc_sk_live_00000000_nope' } } as never, {} as Context)).rejects.toThrow(
      'Unauthorized',
    );
    // The same valid key in two Authorization headers: Unauthorized (an authorizer cannot answer 400; the handler does).
    const twice = { ...event, multiValueHeaders: { Authorization: [`Bearer ${team.key}`, `Bearer ${team.key}`] } };
    await expect(authorizer(twice as never, {} as Context)).rejects.toThrow('Unauthorized');
  });
});

describe('local gateway stage', () => {
  it('create, regenerate and delete are throttled per team within its plan: one team’s writes spend neither its reads nor another team’s writes', async () => {
    // Prepare
    const [a, b] = [await newTeam(), await newTeam()];
    const stage = createPlanGateway({
      plans: { default: { rateLimit: 100, burstLimit: 100 } },
      authorizer,
      client: createDynamoClient(),
      keyTableName: config.keyTableName,
      clock: clock(),
      writeThrottle: { rateLimit: 1, burstLimit: 2 },
    });
    const writes = ROUTES.filter((route) => route.throttle === 'write');
    expect(writes.map((route) => route.name)).toEqual([
      'generate-api-key',
      'regenerate-api-key',
      'delete-api-key',
      'report-leaked-key',
      'create-webhook-endpoint',
      'rotate-webhook-secret',
      'create-identity',
      'adjust-credits',
    ]);

    // Act
    const answers = await Promise.all(
      writes.map(async (route) => ({ route: route.name, answers: await Promise.all(Array.from({ length: 4 }, () => stage(managementEvent(a.key, route)))) })),
    );
    const reads = await Promise.all(Array.from({ length: 10 }, () => stage(managementEvent(a.key))));
    const otherTeam = await stage(managementEvent(b.key, writes[0]!));

    // Assess
    for (const { route, answers: fromA } of answers) {
      expect({ route, passed: fromA.filter((answer) => answer === undefined).length }).toEqual({ route, passed: 2 });
      for (const answer of fromA.filter((refused) => refused !== undefined)) {
        expect(answer?.statusCode).toBe(429);
        expect(JSON.parse(answer?.body ?? '{}').error).toMatchObject({ code: 'THROTTLED', message: THROTTLED_MESSAGE });
      }
    }
    expect(reads.every((answer) => answer === undefined)).toBe(true);
    expect(otherTeam).toBeUndefined();
  });

  it('a burst of 10 from one team: exactly 3 pass, 7 THROTTLED with Retry-After; another team is unaffected', async () => {
    // Prepare
    const [a, b] = [await newTeam(), await newTeam()];
    const stage = gateway();

    // Act
    const burst = await Promise.all(Array.from({ length: 10 }, () => stage(managementEvent(a.key))));
    const other = await stage(managementEvent(b.key));

    // Assess
    expect(burst.filter((answer) => answer === undefined)).toHaveLength(3);
    const throttled = burst.filter((answer) => answer !== undefined);
    expect(throttled).toHaveLength(7);
    for (const answer of throttled) {
      expect(answer?.statusCode).toBe(429);
      expect(JSON.parse(answer?.body ?? '{}').error.code).toBe('THROTTLED');
      expect(answer?.headers?.['Retry-After']).toBe('1');
    }
    expect(other).toBeUndefined();
  });

  it('past the quota in a day: QUOTA_EXCEEDED until the next UTC day; the count outlives the gateway (a restart)', async () => {
    // Prepare
    const team = await newTeam();
    const answers = [];

    // Act: 5 allowed a day, a second apart so the bucket never throttles
    for (let i = 0; i < 7; i++) {
      const stage = i === 4 ? gateway() : undefined; // a "restart" half-way: a fresh gateway, same DynamoDB
      answers.push(await (stage ?? sharedStage)(managementEvent(team.key)));
      clock().advance(1_000);
    }
    const tomorrow = quotaPeriodOf('DAY', clock().now()).endsAt.getTime() - clock().now().getTime();
    clock().advance(tomorrow + 1_000);
    const nextDay = await sharedStage(managementEvent(team.key));

    // Assess
    expect(answers.map((answer) => (answer === undefined ? 'pass' : JSON.parse(answer.body).error.code))).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
      'QUOTA_EXCEEDED',
      'QUOTA_EXCEEDED',
    ]);
    expect(Number(answers[5]?.headers?.['Retry-After'])).toBeGreaterThan(0);
    expect(Number(answers[5]?.headers?.['Retry-After'])).toBeLessThanOrEqual(MS_PER_DAY / 1000);
    expect(nextDay).toBeUndefined();
  });

  it('no key → 401 in the house shape; a team without a plan → 403', async () => {
    const stage = gateway();
    const missing = await stage(managementEvent(undefined));
    expect(missing?.statusCode).toBe(401);
    expect(missing?.headers?.['WWW-Authenticate']).toContain('invalid_token');
    // A key of a team whose plan is unknown to the gateway.
    const team = await newTeam();
    const strict = createPlanGateway({
      plans: { gold: PLANS.gold } as never,
      authorizer,
      client: createDynamoClient(),
      keyTableName: config.keyTableName,
      clock: clock(),
    });
    const refused = await strict(managementEvent(team.key));
    expect(refused?.statusCode).toBe(403);
    expect(JSON.parse(refused?.body ?? '{}').error.code).toBe('FORBIDDEN');
  });
});

let sharedStage: ReturnType<typeof gateway>;
beforeEach(() => {
  sharedStage = gateway();
});

describe('the handler behind the management authorizer', () => {
  it('a key without keys.manage passes the gateway (a use of its team) and the handler answers 403 from the authorizer’s refusal, counting the use', async () => {
    const team = await newTeam();
    const reader = await createKey(team, { scopes: ['enc.*:read'] });
    const event = managementEvent(reader.key);
    expect(await sharedStage(event)).toBeUndefined();
    expect(event.requestContext.authorizer).toMatchObject({ key_id: reader.id, refusal: 'SCOPE_DENIED' });
    const response = await call('get-api-key', {
      key: reader.key,
      query: { key_id: team.keyId },
      authorizerContext: event.requestContext.authorizer as Record<string, unknown>,
    });
    expect(response.status).toBe(403);
    expect(response.headers['WWW-Authenticate']).toContain('insufficient_scope');
    expect((await usageItem(reader.id))?.total_requests).toBe(1);
  });
});

describe('plans of a team', () => {
  it('the first bootstrap puts the team on its plan; a later one moves it, keeping its key', async () => {
    const team = await newTeam();
    const before = await teamItem(team.teamId);
    const moved = await assignTeamPlan(testServices(), team.teamId, 'gold', localUsageKeys);
    const after = await teamItem(team.teamId);
    expect(moved).toEqual({ plan: 'gold', movedFrom: 'default', created: false });
    expect(after).toMatchObject({ plan: 'gold', usage_key: before?.usage_key, usage_key_id: before?.usage_key_id });
    expect(await assignTeamPlan(testServices(), team.teamId, 'gold', localUsageKeys)).toEqual({ plan: 'gold', created: false });
    // The next call through the gateway runs on the new plan.
    const key = await createKey(team);
    expect(await sharedStage(managementEvent(key.key))).toBeUndefined();
  });

  it('USAGE_PLANS overrides cdk.json; a bad value is one clear line', () => {
    expect(plansFrom({ USAGE_PLANS: JSON.stringify(PLANS) })).toEqual(PLANS);
    expect(Object.keys(plansFrom({}))).toContain('default');
    expect(() => plansFrom({ USAGE_PLANS: '{"gold":{"rateLimit":1,"burstLimit":1}}' })).toThrow('USAGE_PLANS: a "default" plan is required');
  });
});

describe('API Gateway keys in AWS (operator credentials)', () => {
  const apigw = mockClient(APIGatewayClient);
  afterAll(() => apigw.restore());
  beforeEach(() => apigw.reset());

  it('creates the team’s key with its own random value and puts it in the plan’s usage plan', async () => {
    apigw.on(CreateApiKeyCommand).resolves({ id: 'k123' });
    apigw.on(CreateUsagePlanKeyCommand).resolves({});
    const issuer = apiGatewayUsageKeys(new APIGatewayClient({ region: 'eu-west-1' }), { default: 'plan-d', gold: 'plan-g' });

    const key = await issuer.create('3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31', 'gold');

    expect(key).toEqual({ id: 'k123', value: expect.stringMatching(/^[A-Za-z0-9_-]{40}$/) });
    expect(apigw.commandCalls(CreateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      {
        name: 'team-3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31',
        description: 'Usage key of team 3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31 (api-key-service)',
        enabled: true,
        value: key.value,
      },
    ]);
    expect(apigw.commandCalls(CreateUsagePlanKeyCommand).map((call) => call.args[0].input)).toEqual([
      { usagePlanId: 'plan-g', keyId: 'k123', keyType: 'API_KEY' },
    ]);
  });

  it('moves a key: out of the old usage plan, into the new one', async () => {
    apigw.on(DeleteUsagePlanKeyCommand).resolves({});
    apigw.on(CreateUsagePlanKeyCommand).resolves({});
    await apiGatewayUsageKeys(new APIGatewayClient({ region: 'eu-west-1' }), { default: 'plan-d', gold: 'plan-g' }).move('k123', 'default', 'gold');
    expect(apigw.calls().map((call) => [call.args[0].constructor.name, call.args[0].input])).toEqual([
      ['DeleteUsagePlanKeyCommand', { usagePlanId: 'plan-d', keyId: 'k123' }],
      ['CreateUsagePlanKeyCommand', { usagePlanId: 'plan-g', keyId: 'k123', keyType: 'API_KEY' }],
    ]);
  });

  it('USAGE_PLAN_IDS must be the stack output’s JSON; an unknown plan is refused before any call', async () => {
    expect(() => usagePlanIdsFrom({})).toThrow('USAGE_PLAN_IDS must name the stack');
    expect(() => usagePlanIdsFrom({ USAGE_PLAN_IDS: '[1]' })).toThrow('UsagePlanIds');
    await expect(apiGatewayUsageKeys(new APIGatewayClient({ region: 'eu-west-1' }), { default: 'plan-d' }).create('t', 'gold')).rejects.toThrow(
      'No usage plan "gold"',
    );
    expect(apigw.calls()).toHaveLength(0);
  });
});
