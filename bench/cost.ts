/**
 * `npm run cost`: what each operation costs per million calls, from figures
 * measured in this run (docs/cost.md). Prints a table on stderr and one JSON
 * object on one line of stdout:
 * `{"prices_date", "operations": [{"operation", "front_door", "usd_per_million", "units": {...}}]}`.
 *
 * Measured here, against DynamoDB Local on loopback (nothing leaves the machine):
 * - read and write units: a proxy in front of the engine asks every request
 *   the service sends for `ReturnConsumedCapacity: TOTAL` and adds up what
 *   the engine reports (hot and cold keys, usage leases on and off);
 * - log bytes: every line the functions write (Powertools JSON at the
 *   template's level, its sampled DEBUG lines at the template's sampling
 *   rate, EMF), plus Lambda's START, END and REPORT lines by their documented
 *   text shape, the API's access-log line, and CloudWatch's 26 bytes per event;
 * - DynamoDB round trips, from which the billed Lambda duration is stated:
 *   3 ms per invocation plus 4 ms per round trip (an assumption, printed
 *   beside the in-process time measured here);
 * - from the synthesized template: each function's memory size and tracing
 *   mode, and the API stage's X-Ray sampling rule.
 * Prices: cost/prices.json (date and sources there).
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { ROUTES, routeNamed, type RouteName } from '../lambda/routes';
import { fixtureOf, prerequisites } from '../lambda/routes/fixtures';
import type { FixtureSend } from '../lambda/contract/fixtures';
import { createServices } from '../lambda/composition/services';
import { documentClientOf } from '../lambda/composition/dynamo';
import { systemClock } from '../lambda/platform/clock';
import { localSecretBox } from '../lambda/platform/secret-box';
import { httpPoster } from '../lambda/adapters/webhook-transport';
import { pinnedKeySource } from '../lambda/domain/github-signatures';
import { authorizerWith } from '../lambda/handlers/authorizer';
import { makeHandler as makeManagementAuthorizer } from '../lambda/handlers/management-authorizer';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { localDynamoClient, startDynamoLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';
import { createLocalServer } from '../local/server';
import { moduleHandlerLoader } from '../local/route-handlers';
import { createPlanGateway, type ManagementAuthorizer } from '../local/usage-plans';
import { type Row, priced, report, TABLES, say } from './cost-model';
import { capacityProxy, logMeter, templateFacts } from './cost-meters';
import { BENCH_CURSOR_KEY } from './local-http';
import { meteredRows } from './cost-metered';

type Proxy = Awaited<ReturnType<typeof capacityProxy>>;
type Logs = ReturnType<typeof logMeter>;
type Services = ReturnType<typeof createServices>;
type Functions = ReturnType<typeof templateFacts>['functions'];
type Send = (
  method: string,
  route: string,
  body?: unknown,
  headers?: Record<string, string>,
  /** The status the call must answer (a fixture's); default any under 300. */
  expected?: number,
) => Promise<{ data?: Record<string, unknown> } & Record<string, unknown>>;
type Measure = ReturnType<typeof meterOf>;

/** The services under measure, through the capacity proxy, logging to the meter; usage leases on (a hot key) or off. */
function costServices(proxy: Proxy, logs: Logs, githubPublicKey: string, leases: boolean): Services {
  return createServices({
    db: documentClientOf(localDynamoClient(proxy.endpoint)),
    clock: systemClock,
    settings: {
      keyTableName: TABLES.keyTable,
      auditTableName: TABLES.auditTable,
      planRateLimit: 1_000_000,
      guessLimitPerMinute: 1_000_000,
      cursorSigningKey: BENCH_CURSOR_KEY,
    },
    observe: logs.observe,
    usageLeases: { enabled: leases },
    webhookPorts: () => {
      const policy = { httpsOnly: false, allowLoopback: true };
      return {
        policy,
        secrets: localSecretBox(randomBytes(32)),
        post: httpPoster({ policy }),
        resolve: async () => [],
        queue: { later: async () => undefined },
      };
    },
    githubKeys: pinnedKeySource(JSON.stringify({ public_keys: [{ key_identifier: 'cost', key: githubPublicKey, is_current: true }] })),
  });
}

/**
 * What `calls` calls of `run` spend, per call (`inFlight` at a time). The
 * window opens after `settle` and ends with it (the verification counts
 * written: one batch per window, as a process writes one per 20 s;
 * docs/analytics.md).
 */
function meterOf(proxy: Proxy, logs: Logs, settle: () => Promise<unknown> = async () => undefined) {
  return async (calls: number, run: () => Promise<unknown>, inFlight = 1) => {
    // What earlier calls left held (a fixture's own requests are counted too) is written before the window opens.
    await settle();
    proxy.take();
    logs.take();
    const started = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < calls) {
          next += 1;
          await run();
        }
      }),
    );
    await settle();
    const ms = Number(process.hrtime.bigint() - started) / 1e6 / calls;
    const spent = proxy.take();
    const written = logs.take();
    return {
      read: spent.read / calls,
      write: spent.write / calls,
      requests: spent.requests / calls,
      logs: { always: written.always / calls, debug: written.debug / calls },
      ms,
    };
  };
}

/** A management call as a manager key makes it; throws on an answer over 299. */
function sender(baseUrl: string, managerKey: string): Send {
  return async (method, route, body, headers = {}, expected) => {
    const response = await fetch(`${baseUrl}/functions/v1/${route}`, {
      method,
      headers: { Authorization: `Bearer ${managerKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const answer = (await response.json()) as { data?: Record<string, unknown> } & Record<string, unknown>;
    if (expected === undefined ? response.status >= 300 : response.status !== expected)
      throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
}

const verifyAt = (base: string, value: string) => async () => {
  const answer = await fetch(`${base}/functions/v1/verify-api-key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ key: value }),
  });
  if (answer.status !== 200) throw new Error(`verify answered ${answer.status}`);
};

/** One platform authorization of `value`, as API Gateway invokes the authorizer. */
const authorize = (services: Services, value: string) => {
  const handler = authorizerWith(
    () => [],
    () => services,
  ) as unknown as (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<unknown>;
  return () =>
    handler(
      {
        type: 'REQUEST',
        methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/GET/tiles/1',
        headers: { Authorization: `Bearer ${value}` },
        multiValueHeaders: {},
        requestContext: { identity: { sourceIp: '203.0.113.10' }, requestId: randomUUID() },
      } as unknown as APIGatewayRequestAuthorizerEvent,
      { awsRequestId: randomUUID() } as Context,
    );
};

/** Verify and the platform authorizer: a cold key (leases off: every call writes its use) and a hot one (leases on, 32 in flight). */
async function hotPathRows(
  functions: Functions,
  measure: Measure,
  cold: Services,
  hot: Services,
  serverUrl: string,
  newKey: (name: string) => Promise<{ id: string; key: string }>,
  logs: Logs,
): Promise<Row[]> {
  say('cost: verify and the platform authorizer, cold and hot keys …');
  const rows: Row[] = [];
  const coldKey = await newKey('Cold key');
  const verifyCold = await measure(50, verifyAt(serverUrl, coldKey.key));
  const hotServer = await createLocalServer({ port: 0, loadHandler: moduleHandlerLoader(() => hot), logger: logs.observe.logger });
  const hotKey = await newKey('Hot key');
  const verifyHot = verifyAt(hotServer.url, hotKey.key);
  await measure(500, verifyHot, 32); // warm: the key becomes hot, its lease is taken
  const verifyHotSpent = await measure(2000, verifyHot, 32);
  for (const door of ['rest-api', 'http-api', 'function-url'] as const) {
    rows.push(priced(functions['verify-api-key'], verifyCold, { operation: 'verify-api-key', door, invocations: 1, key: 'cold' }));
    rows.push(priced(functions['verify-api-key'], verifyHotSpent, { operation: 'verify-api-key', door, invocations: 1, key: 'hot' }));
  }
  const authorizerCold = await measure(50, authorize(cold, coldKey.key));
  const authorizeHot = authorize(hot, hotKey.key);
  await measure(500, authorizeHot, 32);
  const authorizerHot = await measure(2000, authorizeHot, 32);
  rows.push(priced(functions['platform-authorizer'], authorizerCold, { operation: 'platform-authorizer', door: 'platform-api', invocations: 1, key: 'cold' }));
  rows.push(priced(functions['platform-authorizer'], authorizerHot, { operation: 'platform-authorizer', door: 'platform-api', invocations: 1, key: 'hot' }));
  await hotServer.close();
  return rows;
}

/** Every management route once, from its fixture (lambda/routes/<route>/fixture.ts: prerequisites made first, not measured), behind the management authorizer: two invocations per call. */
async function managementRows(functions: Functions, measure: Measure, send: Send, teamId: string): Promise<Row[]> {
  say('cost: every management route …');
  const fixtureSend: FixtureSend = async (name, input) => {
    const route = routeNamed(name);
    if (!route) throw new Error(`no route ${name}`);
    const query = route.input === 'query' ? `?${new URLSearchParams(input as Record<string, string>).toString()}` : '';
    const expected = fixtureOf(name as RouteName).status;
    return { status: expected, body: await send(route.method, `${name}${query}`, route.input === 'query' ? undefined : input, {}, expected) };
  };
  const rows: Row[] = [];
  for (const route of ROUTES.filter((candidate) => candidate.management)) {
    const fixture = fixtureOf(route.name);
    const made = await prerequisites(fixture.needs, teamId, fixtureSend);
    const spent = await measure(1, () => fixtureSend(route.name, fixture.request(made)));
    // The management authorizer's own invocation: its logs and memory are the route's (a small function, measured with it).
    rows.push(priced(functions[route.name], spent, { operation: route.name, door: 'rest-api', invocations: 2 }));
  }
  return rows;
}

/** The partner endpoint: one signed report of one token (a value of a key). */
async function partnerRow(functions: Functions, measure: Measure, send: Send, token: string, privateKey: KeyObject): Promise<Row> {
  const reportBody = JSON.stringify([{ token, type: 'api_key_service_secret_key', url: 'https://github.com/o/r', source: 'content' }]);
  const signature = sign('sha256', Buffer.from(reportBody), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
  const report = await measure(1, () =>
    send('POST', 'github-secret-scanning', reportBody, { Authorization: '', 'Github-Public-Key-Identifier': 'cost', 'Github-Public-Key-Signature': signature }),
  );
  return priced(functions['github-secret-scanning'], report, { operation: 'github-secret-scanning', door: 'rest-api', invocations: 1 });
}

/** Every operation's row, measured on DynamoDB Local behind the local server. */
async function measuredRows(functions: Functions): Promise<Row[]> {
  say('cost: starting DynamoDB Local (in memory) …');
  const engine = await startDynamoLocal({ inMemory: true });
  const direct = localDynamoClient(engine.endpoint);
  await ensureTables(direct, TABLES);
  const proxy = await capacityProxy(engine.endpoint);
  const logs = logMeter();
  const github = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const githubPublicKey = github.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const cold = costServices(proxy, logs, githubPublicKey, false);
  const hot = costServices(proxy, logs, githubPublicKey, true);
  try {
    const teamId = randomUUID();
    await assignTeamPlan(cold, teamId, 'default', localUsageKeys);
    const manager = await bootstrapTeamKey(cold, { teamId, environment: 'live', userId: randomUUID() });
    const server = await createLocalServer({
      port: 0,
      loadHandler: moduleHandlerLoader(() => cold),
      logger: logs.observe.logger,
      gateway: createPlanGateway({
        plans: { default: { rateLimit: 1_000_000, burstLimit: 1_000_000 } },
        authorizer: makeManagementAuthorizer(() => cold) as unknown as ManagementAuthorizer,
        client: direct,
        keyTableName: TABLES.keyTable,
        clock: systemClock,
      }),
    });
    const send = sender(server.url, manager.key);
    const measure = meterOf(proxy, logs, () => Promise.all([cold.counts.flush(), hot.counts.flush()]));
    const newKey = async (name: string, extra: Record<string, unknown> = {}) =>
      (await send('POST', 'generate-api-key', { name, type: 'sk', environment: 'live', team_id: teamId, ...extra })).data as { id: string; key: string };
    const newIdentity = async (extra: Record<string, unknown>) =>
      ((await send('POST', 'create-identity', { team_id: teamId, external_id: `cost-${randomUUID()}`, ...extra })).data as { id: string }).id;
    const hotServer = await createLocalServer({ port: 0, loadHandler: moduleHandlerLoader(() => hot), logger: logs.observe.logger });
    const rows = [
      ...(await hotPathRows(functions, measure, cold, hot, server.url, newKey, logs)),
      ...(await meteredRows(
        functions,
        measure,
        { verify: (value) => verifyAt(server.url, value), verifyHot: (value) => verifyAt(hotServer.url, value), authorize: (value) => authorize(hot, value) },
        newKey,
        newIdentity,
      )),
      ...(await managementRows(functions, measure, send, teamId)),
    ];
    rows.push(await partnerRow(functions, measure, send, (await newKey('Reported')).key, github.privateKey));
    await hotServer.close();
    await server.close();
    return rows;
  } finally {
    await proxy.close();
    direct.destroy();
    await engine.stop();
  }
}

async function main(): Promise<void> {
  say('cost: synthesizing the stack (no bundling) for memory, tracing and logging …');
  const { functions } = templateFacts();
  report(await measuredRows(functions));
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(2);
});
