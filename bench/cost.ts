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
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import { ROUTES, routeNamed } from '../lambda/routes';
import { fixtureOf, prerequisites } from '../lambda/routes/fixtures';
import type { FixtureSend } from '../lambda/contract/fixtures';
import { createServices } from '../lambda/composition/services';
import { documentClientOf } from '../lambda/composition/dynamo';
import { systemClock } from '../lambda/platform/clock';
import { sinkObservability } from '../lambda/platform/observability-sinks';
import { localSecretBox } from '../lambda/platform/secret-box';
import { httpPoster } from '../lambda/adapters/webhook-transport';
import { pinnedKeySource } from '../lambda/domain/github-signatures';
import { authorizerWith } from '../lambda/handlers/authorizer';
import { makeHandler as makeManagementAuthorizer } from '../lambda/handlers/management-authorizer';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { ACCESS_LOG_FIELDS } from '../lib/api';
import { localDynamoClient, startDynamoLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';
import { createLocalServer } from '../local/server';
import { moduleHandlerLoader } from '../local/route-handlers';
import { createPlanGateway, type ManagementAuthorizer } from '../local/usage-plans';

const ROOT = path.resolve(__dirname, '..');
const PRICES = JSON.parse(readFileSync(path.join(ROOT, 'cost', 'prices.json'), 'utf8')) as Record<string, number> & { date: string; region: string };
const TABLES = { keyTable: KEY_TABLE.logicalName, auditTable: AUDIT_TABLE.logicalName };
const say = (line: string) => process.stderr.write(`${line}\n`);

/** The hot path's own log lines and metrics per call, at most (docs/performance.md): a run that exceeds it exits 1. */
export const HOT_PATH_APP_LOG_BUDGET_BYTES = 400;

/** Billed duration assumption: per invocation, and per DynamoDB round trip (in-Region p50, single-digit ms). */
export const LAMBDA_MS_PER_INVOCATION = 3;
export const LAMBDA_MS_PER_ROUND_TRIP = 4;

// ------------------------------------------------------------ the template

import type { FunctionFacts } from './cost-template';
import { BENCH_CURSOR_KEY } from './local-http';

/**
 * Memory, tracing and logging of every function, as the default synthesis
 * has them: bench/cost-template.ts, in a process of its own (the CDK app
 * loads without the `import` condition this script runs under).
 */
function templateFacts(): { functions: Record<string, FunctionFacts>; stageTraceRate: number } {
  const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const output = execFileSync(process.execPath, [tsx, path.join(ROOT, 'bench', 'cost-template.ts')], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(output) as { functions: Record<string, FunctionFacts>; stageTraceRate: number };
}

// ------------------------------------------------------- what a call spends

/** A proxy in front of the engine that asks every request for its consumed capacity and adds it up. */
async function capacityProxy(target: string) {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let spent = { read: 0, write: 0, requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const measured = !['DescribeTable', 'ListTables', 'CreateTable', 'UpdateTimeToLive', 'DescribeTimeToLive'].includes(operation);
      if (measured) input.ReturnConsumedCapacity = 'TOTAL';
      const body = Buffer.from(JSON.stringify(input));
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          if (measured) {
            spent.requests += 1;
            const consumed = (JSON.parse(text || '{}') as { ConsumedCapacity?: unknown }).ConsumedCapacity;
            const units = [consumed ?? []].flat().reduce((sum: number, entry) => sum + Number((entry as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
            const writes = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'].includes(operation);
            spent[writes ? 'write' : 'read'] += units;
          }
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) });
          res.end(text);
        });
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take() {
      const taken = spent;
      spent = { read: 0, write: 0, requests: 0 };
      return taken;
    },
    close: () => new Promise<void>((resolve) => (agent.destroy(), server.close(() => resolve()))),
  };
}

/** Log bytes as CloudWatch ingests them: each line plus its per-event overhead, DEBUG lines apart (they are sampled). */
function logMeter() {
  let bytes = { always: 0, debug: 0 };
  const overhead = PRICES.cloudwatch_logs_bytes_per_event_overhead;
  const line = (level: string, json: string) => {
    // A measured duration is as long in AWS as its digits say: counted at two digits, so two runs count the same bytes.
    // The local runtime's function names (`local-<route>`) are shorter than CloudFormation's generated ones (up to 64
    // characters): counted at 64, an upper bound.
    const steady = json
      .replace(/("[A-Za-z_]*(?:_ms|Ms|Duration|Latency)"\s*:\s*)[0-9.]+/g, '$110')
      .replace(/"function_name":"[^"]*"/g, `"function_name":"${'F'.repeat(64)}"`)
      .replace(/"function_arn":"[^"]*"/g, `"function_arn":"arn:aws:lambda:us-east-1:123456789012:function:${'F'.repeat(64)}"`);
    bytes[level === 'DEBUG' ? 'debug' : 'always'] += Buffer.byteLength(steady) + 1 + overhead;
  };
  const observe = sinkObservability(line, (emf) => line('EMF', JSON.stringify(emf)), { logLevel: 'DEBUG' });
  return {
    observe,
    take() {
      const taken = bytes;
      bytes = { always: 0, debug: 0 };
      return taken;
    },
  };
}

/** Lambda's own lines per invocation (text format): START, END, REPORT, at their documented shape; an X-Ray line when traced. */
function platformLineBytes(traceRate: number): number {
  const id = randomUUID();
  const overhead = PRICES.cloudwatch_logs_bytes_per_event_overhead;
  const lines = [
    `START RequestId: ${id} Version: $LATEST`,
    `END RequestId: ${id}`,
    `REPORT RequestId: ${id}\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 96 MB\t`,
  ];
  const xray = `XRAY TraceId: 1-${'0'.repeat(8)}-${'0'.repeat(24)}\tSegmentId: ${'0'.repeat(16)}\tSampled: true`;
  return lines.reduce((sum, text) => sum + Buffer.byteLength(text) + 1 + overhead, 0) + traceRate * (Buffer.byteLength(xray) + 1);
}

/** The API stage's access-log line (lib/api.ts's format) for a typical request. */
function accessLogBytes(): number {
  const values: Record<string, string> = {
    requestId: randomUUID(),
    ip: '203.0.113.10',
    requestTime: '26/Nov/2026:08:00:00 +0000',
    httpMethod: 'POST',
    resourceId: 'a1b2c3',
    status: '200',
    protocol: 'HTTP/1.1',
    responseLength: '180',
    errorType: '-',
  };
  const line = JSON.stringify(Object.fromEntries(Object.keys(ACCESS_LOG_FIELDS).map((name) => [name, values[name]])));
  return Buffer.byteLength(line) + 1 + PRICES.cloudwatch_logs_bytes_per_event_overhead;
}

// ---------------------------------------------------------------- the model

type FrontDoor = 'rest-api' | 'http-api' | 'function-url' | 'platform-api';

interface Row {
  operation: string;
  front_door: FrontDoor;
  key?: 'hot' | 'cold';
  usd_per_million: number;
  units: { read_units: number; write_units: number; log_bytes: number; lambda_ms: number; trace_rate: number };
  invocations: number;
  /** The functions' own lines (Powertools JSON and EMF, sampled DEBUG included), CloudWatch's per-event bytes included. */
  app_log_bytes: number;
  dynamodb_round_trips: number;
  measured_in_process_ms: number;
  usd: Record<string, number>;
}

const DOOR_PRICE: Record<FrontDoor, number> = {
  'rest-api': PRICES.api_gateway_rest_per_million_requests,
  'http-api': PRICES.api_gateway_http_per_million_requests,
  'function-url': PRICES.lambda_function_url_per_million_requests,
  // Billed to the platform's own API call, which exists with or without this service.
  'platform-api': 0,
};

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

function priced(
  facts: FunctionFacts,
  measured: { read: number; write: number; requests: number; logs: { always: number; debug: number }; ms: number },
  options: { operation: string; door: FrontDoor; invocations: number; key?: 'hot' | 'cold' },
): Row {
  const { invocations, door } = options;
  const appLogs = measured.logs.always + (facts.logLevel === 'DEBUG' ? 1 : facts.debugSampleRate) * measured.logs.debug;
  const logBytes = appLogs + invocations * platformLineBytes(facts.traceRate) + (door === 'rest-api' || door === 'http-api' ? accessLogBytes() : 0);
  const lambdaMs = invocations * LAMBDA_MS_PER_INVOCATION + measured.requests * LAMBDA_MS_PER_ROUND_TRIP;
  const usd = {
    front_door: DOOR_PRICE[door],
    dynamodb: measured.read * PRICES.dynamodb_per_million_read_request_units + measured.write * PRICES.dynamodb_per_million_write_request_units,
    logs: (logBytes / 1e9) * PRICES.cloudwatch_logs_ingested_per_gb * 1e6,
    xray: facts.traceRate * PRICES.xray_per_million_traces_recorded,
    lambda: invocations * PRICES.lambda_per_million_requests + (lambdaMs / 1000) * (facts.memoryMb / 1024) * PRICES.lambda_arm_per_gb_second * 1e6,
  };
  return {
    operation: options.operation,
    front_door: door,
    ...(options.key ? { key: options.key } : {}),
    usd_per_million: round(
      Object.values(usd).reduce((a, b) => a + b, 0),
      2,
    ),
    // Units to two decimals, milliseconds to one: a hot key's leased writes (about one in a thousand calls) vary by a
    // write or two between runs, which no figure at this precision shows.
    units: {
      read_units: round(measured.read, 2),
      write_units: round(measured.write, 2),
      log_bytes: Math.round(logBytes),
      lambda_ms: round(lambdaMs, 1),
      trace_rate: facts.traceRate,
    },
    invocations,
    app_log_bytes: Math.round(appLogs),
    dynamodb_round_trips: round(measured.requests, 3),
    measured_in_process_ms: round(measured.ms, 2),
    usd: Object.fromEntries(Object.entries(usd).map(([name, value]) => [name, round(value, 3)])),
  };
}

// ------------------------------------------------------------------ the run

async function main(): Promise<void> {
  say('cost: synthesizing the stack (no bundling) for memory, tracing and logging …');
  const { functions } = templateFacts();
  say('cost: starting DynamoDB Local (in memory) …');
  const engine = await startDynamoLocal({ inMemory: true });
  const direct = localDynamoClient(engine.endpoint);
  await ensureTables(direct, TABLES);
  const proxy = await capacityProxy(engine.endpoint);
  const logs = logMeter();
  const github = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const servicesWithLeases = (leases: boolean) =>
    createServices({
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
      githubKeys: pinnedKeySource(
        JSON.stringify({ public_keys: [{ key_identifier: 'cost', key: github.publicKey.export({ type: 'spki', format: 'pem' }), is_current: true }] }),
      ),
    });
  const cold = servicesWithLeases(false);
  const hot = servicesWithLeases(true);
  const rows: Row[] = [];
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
    const send = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}/functions/v1/${route}`, {
        method,
        headers: { Authorization: `Bearer ${manager.key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const answer = (await response.json()) as { data?: Record<string, unknown> } & Record<string, unknown>;
      if (response.status >= 300) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
      return answer;
    };
    /** Spends of `calls` calls of `run`, per call. */
    const measure = async (calls: number, run: () => Promise<unknown>, inFlight = 1) => {
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
    const newKey = async (name: string) =>
      (await send('POST', 'generate-api-key', { name, type: 'sk', environment: 'live', team_id: teamId })).data as { id: string; key: string };

    // Verify: a cold key (leases off: every call writes its use) and a hot one (leases on, 32 in flight).
    say('cost: verify and the platform authorizer, cold and hot keys …');
    const verifyAt = (base: string, value: string) => async () => {
      const answer = await fetch(`${base}/functions/v1/verify-api-key`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: value }),
      });
      if (answer.status !== 200) throw new Error(`verify answered ${answer.status}`);
    };
    const coldKey = await newKey('Cold key');
    const verifyCold = await measure(50, verifyAt(server.url, coldKey.key));
    const hotServer = await createLocalServer({ port: 0, loadHandler: moduleHandlerLoader(() => hot), logger: logs.observe.logger });
    const hotKey = await newKey('Hot key');
    const verifyHot = verifyAt(hotServer.url, hotKey.key);
    await measure(500, verifyHot, 32); // warm: the key becomes hot, its lease is taken
    const verifyHotSpent = await measure(2000, verifyHot, 32);
    for (const door of ['rest-api', 'http-api', 'function-url'] as const) {
      rows.push(priced(functions['verify-api-key'], verifyCold, { operation: 'verify-api-key', door, invocations: 1, key: 'cold' }));
      rows.push(priced(functions['verify-api-key'], verifyHotSpent, { operation: 'verify-api-key', door, invocations: 1, key: 'hot' }));
    }

    const authorize = (services: typeof cold, value: string) => {
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
    const authorizerCold = await measure(50, authorize(cold, coldKey.key));
    const authorizeHot = authorize(hot, hotKey.key);
    await measure(500, authorizeHot, 32);
    const authorizerHot = await measure(2000, authorizeHot, 32);
    rows.push(
      priced(functions['platform-authorizer'], authorizerCold, { operation: 'platform-authorizer', door: 'platform-api', invocations: 1, key: 'cold' }),
    );
    rows.push(priced(functions['platform-authorizer'], authorizerHot, { operation: 'platform-authorizer', door: 'platform-api', invocations: 1, key: 'hot' }));
    await hotServer.close();

    // Every management route, once each (behind the management authorizer: two invocations per call).
    say('cost: every management route …');
    // Each route's fixture (lambda/routes/<route>/fixture.ts): its prerequisites made first (not measured), then its request.
    const fixtureSend: FixtureSend = async (name, input) => {
      const route = routeNamed(name);
      if (!route) throw new Error(`no route ${name}`);
      const query = route.input === 'query' ? `?${new URLSearchParams(input as Record<string, string>).toString()}` : '';
      return { status: 200, body: await send(route.method, `${name}${query}`, route.input === 'query' ? undefined : input) };
    };
    for (const route of ROUTES.filter((candidate) => candidate.management)) {
      const fixture = fixtureOf(route.name);
      const made = await prerequisites(fixture.needs, teamId, fixtureSend);
      const spent = await measure(1, () => fixtureSend(route.name, fixture.request(made)));
      const facts = functions[route.name];
      // The management authorizer's own invocation: its logs and memory are the route's (a small function, measured with it).
      rows.push(priced(facts, spent, { operation: route.name, door: 'rest-api', invocations: 2 }));
    }

    // The partner endpoint: one signed report of one token (a value of a key).
    const reportBody = JSON.stringify([
      { token: (await newKey('Reported')).key, type: 'api_key_service_secret_key', url: 'https://github.com/o/r', source: 'content' },
    ]);
    const signature = sign('sha256', Buffer.from(reportBody), { key: github.privateKey, dsaEncoding: 'der' }).toString('base64');
    const report = await measure(1, () =>
      send('POST', 'github-secret-scanning', reportBody, {
        Authorization: '',
        'Github-Public-Key-Identifier': 'cost',
        'Github-Public-Key-Signature': signature,
      }),
    );
    rows.push(priced(functions['github-secret-scanning'], report, { operation: 'github-secret-scanning', door: 'rest-api', invocations: 1 }));
    await server.close();
  } finally {
    await proxy.close();
    direct.destroy();
    await engine.stop();
  }

  const columns = [
    'operation',
    'front_door',
    'key',
    'usd_per_million',
    'read_units',
    'write_units',
    'log_bytes',
    'lambda_ms',
    'trace_rate',
    'round_trips',
    'in_process_ms',
  ];
  const cells = rows.map((row) => [
    row.operation,
    row.front_door,
    row.key ?? '',
    row.usd_per_million.toFixed(2),
    String(row.units.read_units),
    String(row.units.write_units),
    String(row.units.log_bytes),
    String(row.units.lambda_ms),
    String(row.units.trace_rate),
    String(row.dynamodb_round_trips),
    String(row.measured_in_process_ms),
  ]);
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i].length)));
  say('');
  say(`Cost per million calls (USD, ${PRICES.region}, prices of ${PRICES.date}: cost/prices.json)`);
  for (const line of [columns, widths.map((w) => '-'.repeat(w)), ...cells]) say(line.map((cell, i) => cell.padEnd(widths[i])).join('  '));
  say(
    `lambda_ms: ${LAMBDA_MS_PER_INVOCATION} ms per invocation + ${LAMBDA_MS_PER_ROUND_TRIP} ms per DynamoDB round trip (assumed); in_process_ms: measured here against DynamoDB Local`,
  );
  const hotPath = rows.filter((row) => row.front_door !== 'function-url' && (row.operation === 'verify-api-key' || row.operation === 'platform-authorizer'));
  const over = hotPath.filter((row) => row.app_log_bytes > HOT_PATH_APP_LOG_BUDGET_BYTES);
  const budget = { hot_path_app_log_bytes: HOT_PATH_APP_LOG_BUDGET_BYTES, within: over.length === 0 };
  say(
    `Hot path's own log lines and metrics: ${[...new Set(hotPath.map((row) => `${row.operation} ${row.key}: ${row.app_log_bytes} B`))].join(', ')} (budget ${HOT_PATH_APP_LOG_BUDGET_BYTES} B): ${budget.within ? 'within' : 'OVER'}`,
  );
  process.stdout.write(`${JSON.stringify({ prices_date: PRICES.date, region: PRICES.region, budget, operations: rows })}\n`);
  process.exitCode = budget.within ? 0 : 1;
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(2);
});
