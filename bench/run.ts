/**
 * `npm run bench [-- --quick]`: the service's speed, cost and memory budgets,
 * each measured side by side with its baseline in the same run (never in
 * the test suite). Prints a readable table on stderr and one JSON object on
 * stdout. See docs/performance.md.
 *
 * 1. Cold start: every Lambda bundle of a fresh synthesis (cdk.out assets,
 *    default context) against a bundle that only builds the DynamoDB
 *    document client, built with the same esbuild settings: size, and module
 *    load time in fresh Node processes, interleaved round by round.
 * 2. Verify latency: the verify handler against the raw GetItem + UpdateItem
 *    it needs, on the same DynamoDB Local, interleaved request by request:
 *    a value the process has verified before (its write sent with its
 *    read), and a value it has not (read, then write). Split by more runs in
 *    the same rotation (its own requests replayed, at once and in turn; the
 *    replay in turn without the guess counter's read, and with a
 *    one-attribute write for the recording write; the service call without
 *    the handler's layers; the handler over a client answering from memory)
 *    and the process CPU of each.
 *    The Lambda authorizer likewise, against the raw GetItem + UpdateItem +
 *    GetItem it needs (reported, not budgeted).
 * 3. Cost per verification: the usage item a verification writes, for a key
 *    with 400 days of history, sized by DynamoDB's rules, and the write
 *    units DynamoDB reports for that write (`ReturnConsumedCapacity`).
 * 4. Hot key: one key, 32 verifications in flight, usage leases off and on
 *    in alternating rounds: verifications per second, usage writes per
 *    verification, totals checked exact after a flush.
 * 5. DynamoDB requests per operation, counted by a proxy in front of
 *    DynamoDB Local (bench/local-http.ts).
 * 6. The local server's 401 path against a bare node:http server.
 * (2, 3 and 5 run with leases off: a request that writes its own use.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { stackLikeBundle } from './bundle';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { KEY_TABLE, AUDIT_TABLE } from '../lambda/contract/tables';
import { localDynamoClient, startDynamoLocal, type DynamoLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';
import { documentClientOf } from '../lambda/composition/dynamo';
import { createServices, type Services } from '../lambda/composition/services';
import { systemClock } from '../lambda/platform/clock';
import { sinkObservability } from '../lambda/platform/observability-sinks';
import { makeHandler as makeVerifyHandler } from '../lambda/routes/verify-api-key/handler';
import { authorizerWith } from '../lambda/handlers/authorizer';
import { verifyWithGuessLimit } from '../lambda/verification/guess-limiter';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { itemSizeBytes } from './item-size';
import { localHttpPath, requestsPerOperation } from './local-http';
import { webhookFigures } from './webhooks';
import { TEAM } from '../lambda/store/entities/team';
import { USAGE } from '../lambda/store/entities/usage';
import { VALUE_LOOKUP } from '../lambda/store/entities/value-lookup';

const QUICK = process.argv.includes('--quick');
/** `--no-cold-start`: skip the synthesis and the cold-start rounds (storage figures only). */
const COLD = !process.argv.includes('--no-cold-start');
const ROOT = path.resolve(__dirname, '..');

/** Budgets (issue 15); a run fails (exit 1) when one is missed. */
const BUDGET = {
  bundleExtraBytes: 60 * 1024,
  archiverExtraBytes: 250 * 1024,
  initRatio: 1.3,
  archiverInitRatio: 1.6,
  verifyP50Ratio: 1.25,
  usageItemBytes: 1024,
  hotKeyWritesPerVerification: 0.1,
};

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values: readonly number[]) => percentile(values, 50);
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const say = (line: string) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------- cold start

interface Bundle {
  name: string;
  file: string;
}

/**
 * The document-client-only bundle, built with the stack's esbuild settings (lib/house-function.ts). `sameChain`:
 * with the functions' credential chain too (lib/house-function.ts aliases the SDK's), so that the difference is
 * the service's own code and libraries only; without it, the baseline as issue 15 defines it (the SDK's chain).
 */
async function baselineBundle(dir: string, sameChain = false): Promise<Bundle> {
  const entry = path.join(dir, 'baseline.ts');
  writeFileSync(
    entry,
    [
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      'const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));',
      'export const handler = async () => client.config.region;',
    ].join('\n'),
  );
  const file = await stackLikeBundle(entry, path.join(dir, sameChain ? 'baseline-same-chain' : 'baseline', 'index.js'), { sameChain });
  return { name: sameChain ? "baseline, functions' credential chain" : 'baseline (document client only)', file };
}

/** The stack's function bundles, from a fresh `cdk synth` with the default context (what `cdk deploy` uploads). */
function stackBundles(outdir: string): Bundle[] {
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'cdk'), ['synth', '--no-notices', '--quiet', '--output', outdir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const templateFile = readdirSync(outdir).find((name) => name.endsWith('.template.json'));
  if (!templateFile) throw new Error(`cdk synth wrote no template into ${outdir}`);
  const template = JSON.parse(readFileSync(path.join(outdir, templateFile), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties?: { Code?: { S3Key?: string }; Handler?: string } }>;
  };
  const bundles: Bundle[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    const key = resource.Properties?.Code?.S3Key;
    if (resource.Type !== 'AWS::Lambda::Function' || !key) continue;
    const file = path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.js');
    try {
      statSync(file);
    } catch {
      continue; // CDK's own helper functions
    }
    bundles.push({ name: id.replace(/[0-9A-F]{8}$/, ''), file });
  }
  return bundles;
}

/** Milliseconds to load one bundle in a fresh Node process (the module init Lambda pays at a cold start). */
function loadTime(file: string): number {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6));`;
  const out = execFileSync(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  return Number(out);
}

async function coldStart(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-cold-'));
  try {
    say('cold start: synthesizing the stack (bundles every function) …');
    const baseline = await baselineBundle(dir);
    const sameChain = await baselineBundle(dir, true);
    const bundles = stackBundles(path.join(dir, 'cdk.out'));
    const rounds = QUICK ? 7 : 25;
    const times = new Map<string, number[]>([baseline, sameChain, ...bundles].map((b) => [b.file, []] as [string, number[]]));
    for (let round = 0; round < rounds; round++) {
      // Interleaved: every round loads the baselines and each bundle once, in a rotating order.
      const order = [baseline, sameChain, ...bundles];
      const shift = round % order.length;
      for (const bundle of [...order.slice(shift), ...order.slice(0, shift)]) times.get(bundle.file)?.push(loadTime(bundle.file));
    }
    const baseSize = statSync(baseline.file).size;
    const baseInit = median(times.get(baseline.file) ?? []);
    const sameChainSize = statSync(sameChain.file).size;
    const sameChainInit = median(times.get(sameChain.file) ?? []);
    const rows = bundles.map((bundle) => {
      const size = statSync(bundle.file).size;
      const init = median(times.get(bundle.file) ?? []);
      // Off the request path (a stream or queue consumer: the archiver, the event publisher, the webhook deliverer): the consumers' budget.
      const archiver = /Archiver|WebhooksPublisher|WebhooksDeliverer/.test(bundle.name);
      const extraBudget = archiver ? BUDGET.archiverExtraBytes : BUDGET.bundleExtraBytes;
      const ratioBudget = archiver ? BUDGET.archiverInitRatio : BUDGET.initRatio;
      return {
        function: bundle.name,
        bytes: size,
        extra_kb: round((size - baseSize) / 1024, 1),
        extra_budget_kb: extraBudget / 1024,
        // What the service's code and libraries weigh: over the baseline with the same credential chain (no budget).
        extra_kb_same_chain: round((size - sameChainSize) / 1024, 1),
        init_ms_p50: round(init),
        init_ratio: round(init / baseInit),
        init_ratio_budget: ratioBudget,
        init_ratio_same_chain: round(init / sameChainInit),
        within_budget: size - baseSize <= extraBudget && init / baseInit <= ratioBudget,
      };
    });
    return {
      rounds,
      baseline: { bytes: baseSize, init_ms_p50: round(baseInit) },
      baseline_same_chain: { bytes: sameChainSize, init_ms_p50: round(sameChainInit) },
      functions: rows,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------- verify and its cost

const TABLES = { keyTable: `bench-${KEY_TABLE.logicalName}`, auditTable: `bench-${AUDIT_TABLE.logicalName}` };

/** The source address of every benchmarked verification (one guess counter). */
const BENCH_SOURCE_IP = '198.51.100.7';

const BENCH_SETTINGS = { keyTableName: TABLES.keyTable, auditTableName: TABLES.auditTable, planRateLimit: 1_000_000, guessLimitPerMinute: 1_000_000 };

/**
 * The services under test, and a document client of their own for the raw
 * requests. `leases`: whether the usage store leases hot keys' capacity
 * (off: every verification writes its use, what a key at a low rate pays).
 */
function benchServices(
  endpoint: string,
  leases: boolean,
): { services: Services; doc: DynamoDBDocumentClient; usageWrites(): number; lastInput(command: 'BatchGetItemCommand' | 'UpdateItemCommand'): unknown } {
  const doc = documentClientOf(localDynamoClient(endpoint));
  const db = documentClientOf(localDynamoClient(endpoint));
  let writes = 0;
  const lastInputs = new Map<string, unknown>();
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateCommand' || context.commandName === 'UpdateItemCommand') writes += 1;
      // The services' requests as sent, to replay them without the handler (each request's input is built anew and not changed after).
      lastInputs.set(String(context.commandName), args.input);
      return next(args);
    },
    { step: 'initialize', name: 'countUsageWrites' },
  );
  const services = silentServices(db, leases);
  return { services, doc, usageWrites: () => writes, lastInput: (command) => lastInputs.get(command) };
}

/** The services a bench run measures: the bench's settings, silent logs and metrics, usage leases on or off. */
function silentServices(db: DynamoDBDocumentClient, leases: boolean) {
  return createServices({
    db,
    clock: systemClock,
    settings: BENCH_SETTINGS,
    observe: sinkObservability(
      () => undefined,
      () => undefined,
    ),
    usageLeases: { enabled: leases },
  });
}

function verifyEvent(value: string): APIGatewayProxyEvent {
  return {
    resource: '/functions/v1/verify-api-key',
    path: '/functions/v1/verify-api-key',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    isBase64Encoded: false,
    body: JSON.stringify({ key: value }),
    requestContext: { requestId: randomUUID(), identity: { sourceIp: BENCH_SOURCE_IP } },
  } as unknown as APIGatewayProxyEvent;
}

async function verifyLatency(
  services: Services,
  doc: DynamoDBDocumentClient,
  value: string,
  keyId: string,
  lastInput: (command: 'BatchGetItemCommand' | 'UpdateItemCommand') => unknown,
): Promise<Record<string, unknown>> {
  const handler = makeVerifyHandler(() => services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  // Raw's write: one attribute of the usage item, the floor DynamoDB Local sets for any write.
  const touch = () =>
    doc.send(
      new UpdateCommand({
        TableName: TABLES.keyTable,
        Key: USAGE.key(keyId),
        UpdateExpression: 'SET bench_touch = :now',
        ExpressionAttributeValues: { ':now': Date.now() },
      }),
    );
  const raw = async () => {
    await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }));
    await touch();
  };
  const verify = async () => {
    const answer = await handler(verifyEvent(value), context);
    if (answer.statusCode !== 200 || !JSON.parse(answer.body).valid) throw new Error(`verify answered ${answer.statusCode} ${answer.body}`);
  };
  // A value this process has not read before (a cold process, or the first use of a value in it): the write cannot
  // be predicted, so it follows the read.
  const verifyFirst = async () => {
    services.lookups.seenLookups.clear();
    await verify();
  };
  // The verify service call alone (what the handler calls once its event is parsed): no middy, no body parse, no
  // Powertools, no response. Same source address as the events, so the same guess counter is read.
  const service = async () => {
    const outcome = await verifyWithGuessLimit(services, { value, sourceIp: BENCH_SOURCE_IP });
    if (outcome.kind !== 'answer' || !outcome.result.valid) throw new Error(`the verify service answered ${JSON.stringify(outcome)}`);
  };
  // The same handler over a client answering from memory, run in turn with the others: its own code's time when it
  // runs after waits on the engine, as in the real handler.
  const withoutIo = verifyWithoutIo(doc, value);
  const warmup = QUICK ? 30 : 100;
  for (let i = 0; i < warmup; i++) {
    await verify();
    await service();
    await withoutIo();
    await raw();
  }
  // The very requests verify sends, replayed without the handler: its BatchGetItem (the value lookup and the source's
  // guess counter) and its recording UpdateItem (the same expression, condition and ALL_NEW), as captured after the
  // warm-up; sent at once as for a value seen before, and in turn as for a first one.
  const batchGet = lastInput('BatchGetItemCommand') as BatchGetCommandInput;
  const recordUse = lastInput('UpdateItemCommand') as UpdateCommandInput;
  const same = async () => {
    await Promise.all([doc.send(new BatchGetCommand(batchGet)), doc.send(new UpdateCommand(recordUse))]);
  };
  const sameInTurn = async () => {
    await doc.send(new BatchGetCommand(batchGet));
    await doc.send(new UpdateCommand(recordUse));
  };
  // The replay less one of verify's two needs each, to price them on the engine: without the source's guess counter
  // (the value lookup alone, in a GetItem), and with raw's one-attribute write in place of the recording write.
  const lookupKey = (batchGet.RequestItems?.[TABLES.keyTable]?.Keys ?? []).find((key) => key.sk === VALUE_LOOKUP.key('').sk);
  if (!lookupKey) throw new Error('the captured BatchGetItem has no value lookup');
  const sameWithoutCounter = async () => {
    await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: lookupKey, ConsistentRead: true }));
    await doc.send(new UpdateCommand(recordUse));
  };
  const sameWithPlainWrite = async () => {
    await doc.send(new BatchGetCommand(batchGet));
    await touch();
  };
  const n = QUICK ? 200 : 1000;
  const runs = { verify, verifyFirst, service, withoutIo, same, sameInTurn, sameWithoutCounter, sameWithPlainWrite, raw };
  type Variant = keyof typeof runs;
  const names = Object.keys(runs) as Variant[];
  const wall = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Variant, number[]>;
  // The process's CPU time (user + system, every thread) while each ran: the handler's cost in this interleaved
  // run, where code runs after each wait on the engine rather than back to back.
  const cpu = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Variant, number[]>;
  for (let i = 0; i < n; i++) {
    // Interleaved, rotating which goes first.
    const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
    for (const name of order) {
      const cpuBefore = process.cpuUsage();
      const started = process.hrtime.bigint();
      await runs[name]();
      wall[name].push(Number(process.hrtime.bigint() - started) / 1e6);
      const used = process.cpuUsage(cpuBefore);
      cpu[name].push((used.user + used.system) / 1000);
    }
  }
  const p50 = (name: Variant) => median(wall[name]);
  const cpuP50 = (name: Variant) => median(cpu[name]);
  return {
    requests: n,
    verify_ms: { p50: round(p50('verify')), p99: round(percentile(wall.verify, 99)) },
    raw_get_update_ms: { p50: round(p50('raw')), p99: round(percentile(wall.raw, 99)) },
    verify_requests_without_handler_ms: { p50: round(p50('same')), p99: round(percentile(wall.same, 99)) },
    verify_service_call_ms: { p50: round(p50('service')), p99: round(percentile(wall.service, 99)) },
    verify_requests_p50_ratio: round(p50('same') / p50('raw')),
    // A value this process has not read before: read, then write.
    verify_first_ms: { p50: round(p50('verifyFirst')), p99: round(percentile(wall.verifyFirst, 99)) },
    verify_first_p50_ratio: round(p50('verifyFirst') / p50('raw')),
    verify_requests_in_turn_ms: { p50: round(p50('sameInTurn')), p99: round(percentile(wall.sameInTurn, 99)) },
    verify_requests_in_turn_p50_ratio: round(p50('sameInTurn') / p50('raw')),
    verify_requests_without_guess_counter_ms: { p50: round(p50('sameWithoutCounter')), p99: round(percentile(wall.sameWithoutCounter, 99)) },
    verify_requests_with_plain_write_ms: { p50: round(p50('sameWithPlainWrite')), p99: round(percentile(wall.sameWithPlainWrite, 99)) },
    // What each of verify's needs costs on the engine: the replay against the replay without it.
    guess_counter_read_ms_p50: round(p50('sameInTurn') - p50('sameWithoutCounter'), 3),
    recording_write_over_plain_write_ms_p50: round(p50('sameInTurn') - p50('sameWithPlainWrite'), 3),
    verify_service_call_p50_ratio: round(p50('service') / p50('raw')),
    handler_overhead_ms_p50: round(p50('verify') - p50('same')),
    handler_overhead_first_ms_p50: round(p50('verifyFirst') - p50('sameInTurn')),
    handler_without_io_interleaved_ms: { p50: round(p50('withoutIo'), 3), p99: round(percentile(wall.withoutIo, 99), 3) },
    cpu_ms_p50: Object.fromEntries(names.map((name) => [name, round(cpuP50(name), 3)])),
    p50_ratio: round(p50('verify') / p50('raw')),
    p50_ratio_budget: BUDGET.verifyP50Ratio,
    within_budget: p50('verify') / p50('raw') <= BUDGET.verifyP50Ratio,
  };
}

/**
 * The Lambda authorizer against the raw requests it needs in turn (the
 * value's GetItem, the use's UpdateItem, the team's GetItem), interleaved:
 * for a value the process has verified before (the three sent at once) and
 * for a first value (in turn). Reported, not budgeted (the budget is the
 * verify endpoint's).
 */
async function authorizerLatency(
  services: Services,
  doc: DynamoDBDocumentClient,
  value: string,
  keyId: string,
  teamId: string,
): Promise<Record<string, unknown>> {
  const handler = authorizerWith(
    () => [],
    () => services,
  ) as unknown as (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  const event = {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:bench/prod/GET/tiles/1',
    headers: { Authorization: `Bearer ${value}` },
    multiValueHeaders: { Authorization: [`Bearer ${value}`] },
    requestContext: { identity: { sourceIp: BENCH_SOURCE_IP } },
  } as unknown as APIGatewayRequestAuthorizerEvent;
  const authorize = async () => {
    const answer = await handler(event, context);
    if (answer.context?.key_id !== keyId) throw new Error(`the authorizer answered ${JSON.stringify(answer)}`);
  };
  const authorizeFirst = async () => {
    services.lookups.seenLookups.clear();
    await authorize();
  };
  const raw = async () => {
    await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }));
    await doc.send(
      new UpdateCommand({
        TableName: TABLES.keyTable,
        Key: USAGE.key(keyId),
        UpdateExpression: 'SET bench_touch = :now',
        ExpressionAttributeValues: { ':now': Date.now() },
      }),
    );
    await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: TEAM.key(teamId), ConsistentRead: true }));
  };
  const runs = { authorize, authorizeFirst, raw };
  type Variant = keyof typeof runs;
  const names = Object.keys(runs) as Variant[];
  for (let i = 0; i < (QUICK ? 30 : 100); i++) for (const name of names) await runs[name]();
  const wall = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Variant, number[]>;
  const n = QUICK ? 200 : 500;
  for (let i = 0; i < n; i++) {
    const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
    for (const name of order) {
      const started = process.hrtime.bigint();
      await runs[name]();
      wall[name].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  const figure = (name: Variant) => ({ p50: round(median(wall[name])), p99: round(percentile(wall[name], 99)) });
  return {
    requests: n,
    authorizer_ms: figure('authorize'),
    authorizer_first_ms: figure('authorizeFirst'),
    raw_get_update_get_ms: figure('raw'),
    p50_ratio: round(median(wall.authorize) / median(wall.raw)),
    first_p50_ratio: round(median(wall.authorizeFirst) / median(wall.raw)),
  };
}

/**
 * The verify handler over services whose DynamoDB client answers from memory
 * (each kind of request's first answer from DynamoDB Local, given again):
 * the handler's own code without any I/O.
 */
function verifyWithoutIo(real: DynamoDBDocumentClient, value: string): () => Promise<void> {
  const answers = new Map<string, unknown>();
  const db = {
    send: async (command: object) => {
      const name = command.constructor.name;
      if (!answers.has(name)) answers.set(name, await real.send(command as never));
      return answers.get(name);
    },
  } as unknown as DynamoDBDocumentClient;
  const services = silentServices(db, false);
  const handler = makeVerifyHandler(() => services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  return async () => {
    const answer = await handler(verifyEvent(value), context);
    if (answer.statusCode !== 200 || !JSON.parse(answer.body).valid) throw new Error(`the stubbed verify answered ${answer.statusCode} ${answer.body}`);
  };
}

/** The handler's own time per verification without I/O, back to back (20,000 runs after a warm-up). */
async function backToBack(run: () => Promise<void>): Promise<number> {
  const n = QUICK ? 5_000 : 20_000;
  for (let i = 0; i < n / 10; i++) await run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await run();
  return Number(process.hrtime.bigint() - started) / 1e6 / n;
}

/** Seeds `days` days of history on the key's usage item, as if it had been verified once a day since. */
async function seedHistory(doc: DynamoDBDocumentClient, keyId: string, days: number): Promise<void> {
  const { Item } = await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }));
  const daily: Record<string, number> = {};
  const now = Date.now();
  for (let d = days; d >= 1; d--) daily[new Date(now - d * 86_400_000).toISOString().slice(0, 10)] = 1 + (d % 97);
  await doc.send(new PutCommand({ TableName: TABLES.keyTable, Item: { ...Item, daily, total_requests: Object.values(daily).reduce((a, b) => a + b, 0) } }));
}

async function costPerVerification(services: Services, doc: DynamoDBDocumentClient, value: string, keyId: string): Promise<Record<string, unknown>> {
  await seedHistory(doc, keyId, 400);
  const handler = makeVerifyHandler(() => services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  // The first uses after seeding drain the backlog (old days copied to their months, then removed, 40 a write).
  const itemNow = async () => (await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }))).Item ?? {};
  const sizeBefore = itemSizeBytes(await itemNow());
  let drainedAfter = 0;
  for (; drainedAfter < 30 && Object.keys((await itemNow()).daily ?? {}).length > 32; drainedAfter++) await handler(verifyEvent(value), context);
  const sizes: number[] = [];
  for (let i = 0; i < 3; i++) {
    await handler(verifyEvent(value), context);
    sizes.push(itemSizeBytes(await itemNow()));
  }
  // What DynamoDB charges for one more write of that item (a standard write: 1 unit per started KB of the larger of the old and new item).
  const { ConsumedCapacity } = await doc.send(
    new UpdateCommand({
      TableName: TABLES.keyTable,
      Key: USAGE.key(keyId),
      UpdateExpression: 'SET total_requests = total_requests + :zero',
      ExpressionAttributeValues: { ':zero': 0 },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  const size = Math.max(...sizes);
  return {
    history_days_seeded: 400,
    usage_item_bytes_seeded: sizeBefore,
    verifications_to_drain_the_backlog: drainedAfter,
    usage_item_bytes: size,
    write_units_by_sizing_rules: Math.ceil(size / 1024),
    // DynamoDB Local reports the units of this write; in AWS, ReturnConsumedCapacity gives the same.
    write_units_reported: ConsumedCapacity?.CapacityUnits ?? null,
    item_bytes_budget: BUDGET.usageItemBytes,
    within_budget: size < BUDGET.usageItemBytes,
  };
}

/**
 * Hot key: one key verified by 32 concurrent callers in one process, with
 * leases off (every verification writes the usage item) and on, in
 * alternating rounds: verifications per second and usage writes per
 * verification; the item's total is checked exact after a flush.
 */
async function hotKey(endpoint: string, value: string, keyId: string): Promise<Record<string, unknown>> {
  const n = QUICK ? 2_000 : 10_000;
  const rounds = QUICK ? 1 : 2;
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  const runs: Record<'off' | 'on', { perSecond: number[]; writesPerVerification: number[] }> = {
    off: { perSecond: [], writesPerVerification: [] },
    on: { perSecond: [], writesPerVerification: [] },
  };
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const bench = benchServices(endpoint, mode === 'on');
      const handler = makeVerifyHandler(() => bench.services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
      const totalOf = async () =>
        Number((await bench.doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: USAGE.key(keyId), ConsistentRead: true }))).Item?.total_requests);
      const before = await totalOf();
      let next = 0;
      const started = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < n) {
            next += 1;
            const answer = await handler(verifyEvent(value), context);
            if (answer.statusCode !== 200) throw new Error(`hot key: verify answered ${answer.statusCode} ${answer.body}`);
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const writes = bench.usageWrites();
      await bench.services.usage.flushPending();
      const counted = (await totalOf()) - before;
      if (counted !== n) throw new Error(`hot key (${mode}): ${n} verifications, ${counted} counted`);
      runs[mode].perSecond.push(n / seconds);
      runs[mode].writesPerVerification.push(writes / n);
    }
  }
  const summary = (mode: 'off' | 'on') => ({
    verifications_per_second: round(median(runs[mode].perSecond), 0),
    usage_writes_per_verification: round(median(runs[mode].writesPerVerification), 4),
  });
  const on = summary('on');
  return {
    in_flight: 32,
    verifications: n,
    rounds,
    leases_off: summary('off'),
    leases_on: on,
    writes_per_verification_budget: BUDGET.hotKeyWritesPerVerification,
    within_budget: on.usage_writes_per_verification <= BUDGET.hotKeyWritesPerVerification,
  };
}

async function storage(): Promise<Record<string, unknown>> {
  let engine: DynamoLocal | undefined;
  try {
    say('verify: starting DynamoDB Local …');
    engine = await startDynamoLocal({ inMemory: true });
    const client = localDynamoClient(engine.endpoint);
    await ensureTables(client, TABLES);
    // Leases off: the latency and the cost of a verification that writes its own use (a key at a low rate).
    const { services, doc, lastInput } = benchServices(engine.endpoint, false);
    const teamId = randomUUID();
    await assignTeamPlan(services, teamId, 'default', localUsageKeys);
    const boot = await bootstrapTeamKey(services, { teamId, environment: 'live', userId: randomUUID() });
    say('verify: interleaving verifications with raw GetItem + UpdateItem …');
    const latency = await verifyLatency(services, doc, boot.key, boot.id, lastInput);
    latency.handler_ms_without_io_back_to_back = round(await backToBack(verifyWithoutIo(doc, boot.key)), 3);
    say('authorizer: interleaving authorizations with raw GetItem + UpdateItem + GetItem …');
    latency.authorizer = await authorizerLatency(services, doc, boot.key, boot.id, teamId);
    say('cost: seeding 400 days of history …');
    const cost = await costPerVerification(services, doc, boot.key, boot.id);
    say('hot key: 32 in flight on one key, leases off and on …');
    const hot = await hotKey(engine.endpoint, boot.key, boot.id);
    say('requests per operation: through a counting proxy …');
    const requests = await requestsPerOperation(engine.endpoint, TABLES);
    say('local HTTP 401 path against a bare node:http server …');
    const http = await localHttpPath(engine.endpoint, TABLES, QUICK);
    say('webhooks: key routes with and without the event pipeline, and delivery throughput …');
    const webhooks = await webhookFigures(engine.endpoint, TABLES, QUICK);
    client.destroy();
    return { verify_latency: latency, cost_per_verification: cost, hot_key: hot, requests_per_operation: requests, local_http_401: http, webhooks };
  } finally {
    await engine?.stop();
  }
}

// -------------------------------------------------------------------- report

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((column) => String(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i])).join('  ');
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const cold = COLD ? await coldStart() : { rounds: 0, baseline: { bytes: 0, init_ms_p50: 0 }, functions: [] };
  const store = await storage();
  const result = { quick: QUICK, node: process.version, seconds: Math.round((Date.now() - started) / 1000), cold_start: cold, ...store };
  say('');
  say(
    `Cold start (baseline: ${(cold.baseline as { bytes: number }).bytes} bytes, init p50 ${(cold.baseline as { init_ms_p50: number }).init_ms_p50} ms, ${cold.rounds} interleaved rounds)`,
  );
  const sameChainBaseline = (cold as { baseline_same_chain?: { bytes: number; init_ms_p50: number } }).baseline_same_chain;
  if (sameChainBaseline)
    say(
      `  (the same baseline with the functions' credential chain: ${sameChainBaseline.bytes} bytes, init p50 ${sameChainBaseline.init_ms_p50} ms; the *_same_chain columns)`,
    );
  say(table(cold.functions as Record<string, unknown>[]));
  say('');
  const latency = store.verify_latency as Record<string, unknown>;
  say(
    `Verify: ${JSON.stringify(latency.verify_ms)} vs raw GetItem+UpdateItem ${JSON.stringify(latency.raw_get_update_ms)} ms -> p50 ratio ${latency.p50_ratio} (budget ${latency.p50_ratio_budget})`,
  );
  say(`        (a value seen before in the process: its write sent with its read)`);
  say(
    `        its own requests replayed without the handler, at once ${JSON.stringify(latency.verify_requests_without_handler_ms)} ms (p50 ratio ${latency.verify_requests_p50_ratio})`,
  );
  say(
    `        the verify service call alone (no middy, body parse or Powertools) ${JSON.stringify(latency.verify_service_call_ms)} ms (p50 ratio ${latency.verify_service_call_p50_ratio})`,
  );
  say(
    `        a value not seen before in the process (read, then write) ${JSON.stringify(latency.verify_first_ms)} ms (p50 ratio ${latency.verify_first_p50_ratio}); its requests in turn ${JSON.stringify(latency.verify_requests_in_turn_ms)} ms (p50 ratio ${latency.verify_requests_in_turn_p50_ratio})`,
  );
  say(
    `        of which the guess counter read with the lookup ${latency.guess_counter_read_ms_p50} ms and the recording write over a one-attribute SET ${latency.recording_write_over_plain_write_ms_p50} ms (p50 differences, raw p50 ${(latency.raw_get_update_ms as { p50: number }).p50} ms)`,
  );
  say(
    `        handler p50 overhead ${latency.handler_overhead_ms_p50} ms (${latency.handler_overhead_first_ms_p50} ms for a first value); the handler without I/O takes ${latency.handler_ms_without_io_back_to_back} ms back to back, p50 ${(latency.handler_without_io_interleaved_ms as { p50: number }).p50} ms in turn with the others; process CPU p50 per run ${JSON.stringify(latency.cpu_ms_p50)} ms`,
  );
  const authorizer = latency.authorizer as Record<string, unknown>;
  say(
    `Authorizer (reported): a value seen before ${JSON.stringify(authorizer.authorizer_ms)} ms, a first value ${JSON.stringify(authorizer.authorizer_first_ms)} ms vs raw GetItem+UpdateItem+GetItem ${JSON.stringify(authorizer.raw_get_update_get_ms)} ms -> p50 ratios ${authorizer.p50_ratio} and ${authorizer.first_p50_ratio}`,
  );
  const cost = store.cost_per_verification as Record<string, unknown>;
  say(
    `Cost: usage item seeded with 400 days = ${cost.usage_item_bytes_seeded} bytes; after ${cost.verifications_to_drain_the_backlog} verifications it is ${cost.usage_item_bytes} bytes, ${cost.write_units_by_sizing_rules} write unit(s) by the sizing rules, ${cost.write_units_reported} reported (budget < ${cost.item_bytes_budget} bytes)`,
  );
  const hot = store.hot_key as Record<string, Record<string, unknown>>;
  say(
    `Hot key (32 in flight, ${hot.verifications} verifications): leases off ${hot.leases_off.verifications_per_second}/s, ${hot.leases_off.usage_writes_per_verification} usage writes per verification; leases on ${hot.leases_on.verifications_per_second}/s, ${hot.leases_on.usage_writes_per_verification} (budget <= ${hot.writes_per_verification_budget})`,
  );
  const requests = store.requests_per_operation as { operations: Record<string, unknown>[]; within_budget: boolean };
  say('');
  say('DynamoDB requests per operation (counting proxy; leases off: every request writes its own use)');
  say(table(requests.operations));
  const http = store.local_http_401 as Record<string, unknown>;
  say('');
  say(`Local HTTP 401 path (32 in flight): ${http.local_server_per_second}/s vs bare node:http ${http.bare_node_http_per_second}/s -> ratio ${http.ratio}`);
  const webhooks = store.webhooks as { key_routes: Record<string, unknown>; delivery: Record<string, unknown> };
  say('');
  say(
    `Webhooks: create + edit p50 ${JSON.stringify(webhooks.key_routes.create_and_edit_ms_p50)} ms (ratio ${webhooks.key_routes.p50_ratio}, ${webhooks.key_routes.events_delivered} events delivered meanwhile); DynamoDB requests per create + edit ${JSON.stringify(webhooks.key_routes.dynamodb_requests_per_create_and_edit)} (the same: ${webhooks.key_routes.same_requests})`,
  );
  say(
    `          delivery: ${webhooks.delivery.deliveries} deliveries of ${webhooks.delivery.events} events to ${webhooks.delivery.endpoints} endpoints, ${webhooks.delivery.deliveries_per_second}/s (8 events in flight, signed, recorded)`,
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const misses = [
    ...(cold.functions as { function: string; within_budget: boolean }[]).filter((row) => !row.within_budget).map((row) => `cold start: ${row.function}`),
    ...(latency.within_budget ? [] : ['verify p50 ratio']),
    ...(cost.within_budget ? [] : ['usage item size']),
    ...(hot.within_budget ? [] : ['hot key writes per verification']),
    ...(requests.within_budget ? [] : ['DynamoDB requests per operation']),
    ...(webhooks.key_routes.same_requests ? [] : ['webhooks: the key routes send other requests with events on']),
  ];
  say(misses.length === 0 ? 'All budgets met.' : `Budgets missed: ${misses.join(', ')}`);
  process.exitCode = misses.length === 0 ? 0 : 1;
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(2);
});
