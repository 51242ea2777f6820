/**
 * `npm run bench`, section 2: verify latency. The verify handler against the
 * raw GetItem + UpdateItem it needs, on the same DynamoDB Local, interleaved
 * request by request, split by more runs in the same rotation; the Lambda
 * authorizer likewise (reported, not budgeted). See bench/run.ts.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import {
  BatchGetCommand,
  GetCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { type Services } from '../lambda/composition/services';
import { makeHandler as makeVerifyHandler } from '../lambda/routes/verify-api-key/handler';
import { authorizerWith } from '../lambda/handlers/authorizer';
import { verifyWithGuessLimit } from '../lambda/verification/guess-limiter';
import { TEAM } from '../lambda/store/entities/team';
import { USAGE } from '../lambda/store/entities/usage';
import { VALUE_LOOKUP } from '../lambda/store/entities/value-lookup';
import { BUDGET, QUICK, median, percentile, round } from './figures';
import { BENCH_SOURCE_IP, TABLES, silentServices, verifyEvent } from './bench-services';

export async function verifyLatency(
  services: Services,
  doc: DynamoDBDocumentClient,
  value: string,
  keyId: string,
  lastInput: (command: 'BatchGetItemCommand' | 'UpdateItemCommand') => unknown,
  /** A value of a key with three named limits and credits (docs/limits.md): its verification beside the others (reported). */
  meteredValue: string,
  /** Services with leases on: the same metered value verified as a hot key is (leased blocks, domain/meter-lease.ts; budgeted). */
  leasedServices: Services,
): Promise<Record<string, unknown>> {
  const handler = makeVerifyHandler(() => services) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  const leasedHandler = makeVerifyHandler(() => leasedServices) as unknown as typeof handler;
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
  const verifyMetered = async () => {
    const answer = await handler(verifyEvent(meteredValue), context);
    if (answer.statusCode !== 200 || !JSON.parse(answer.body).valid) throw new Error(`metered verify answered ${answer.statusCode} ${answer.body}`);
  };
  const verifyMeteredLeased = async () => {
    const answer = await leasedHandler(verifyEvent(meteredValue), context);
    if (answer.statusCode !== 200 || !JSON.parse(answer.body).valid) throw new Error(`leased metered verify answered ${answer.statusCode} ${answer.body}`);
  };
  const warmup = QUICK ? 30 : 100;
  // First, so that the requests captured below are the plain verification's.
  for (let i = 0; i < warmup; i++) await verifyMetered();
  for (let i = 0; i < warmup; i++) await verifyMeteredLeased();
  for (let i = 0; i < warmup; i++) {
    await verify();
    await service();
    await withoutIo();
    await raw();
  }
  // The very requests verify sends, replayed without the handler, as captured after the warm-up.
  const replay = replaysOf(doc, lastInput('BatchGetItemCommand') as BatchGetCommandInput, lastInput('UpdateItemCommand') as UpdateCommandInput, touch);
  const n = QUICK ? 200 : 1000;
  const runs = { verify, verifyFirst, verifyMetered, verifyMeteredLeased, service, withoutIo, ...replay, raw };
  type Variant = keyof typeof runs;
  const names = Object.keys(runs) as Variant[];
  const { wall, cpu } = await interleaved(runs, n);
  return latencyFigures(n, names, wall, cpu);
}

/**
 * verify's requests replayed without the handler: its BatchGetItem (the value lookup and the source's guess counter)
 * and its recording UpdateItem (the same expression, condition and ALL_NEW), sent at once as for a value seen before,
 * and in turn as for a first one; and the replay less one of verify's two needs each, to price them on the engine:
 * without the source's guess counter (the value lookup alone, in a GetItem), and with raw's one-attribute write
 * (`touch`) in place of the recording write.
 */
function replaysOf(doc: DynamoDBDocumentClient, batchGet: BatchGetCommandInput, recordUse: UpdateCommandInput, touch: () => Promise<unknown>) {
  const lookupKey = (batchGet.RequestItems?.[TABLES.keyTable]?.Keys ?? []).find((key) => key.sk === VALUE_LOOKUP.key('').sk);
  if (!lookupKey) throw new Error('the captured BatchGetItem has no value lookup');
  return {
    same: async () => {
      await Promise.all([doc.send(new BatchGetCommand(batchGet)), doc.send(new UpdateCommand(recordUse))]);
    },
    sameInTurn: async () => {
      await doc.send(new BatchGetCommand(batchGet));
      await doc.send(new UpdateCommand(recordUse));
    },
    sameWithoutCounter: async () => {
      await doc.send(new GetCommand({ TableName: TABLES.keyTable, Key: lookupKey, ConsistentRead: true }));
      await doc.send(new UpdateCommand(recordUse));
    },
    sameWithPlainWrite: async () => {
      await doc.send(new BatchGetCommand(batchGet));
      await touch();
    },
  };
}

/**
 * Each run's wall time and the process's CPU time (user + system, every thread) while it ran, `n` rounds,
 * interleaved and rotating which goes first: the handler's cost where code runs after each wait on the engine
 * rather than back to back.
 */
async function interleaved<V extends string>(runs: Record<V, () => Promise<void>>, n: number): Promise<Record<'wall' | 'cpu', Record<V, number[]>>> {
  const names = Object.keys(runs) as V[];
  const wall = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<V, number[]>;
  const cpu = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<V, number[]>;
  for (let i = 0; i < n; i++) {
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
  return { wall, cpu };
}

type Variant = 'verify' | 'verifyFirst' | 'verifyMetered' | 'verifyMeteredLeased' | 'service' | 'withoutIo' | 'raw' | ReplayVariant;
type ReplayVariant = 'same' | 'sameInTurn' | 'sameWithoutCounter' | 'sameWithPlainWrite';

/** The verify section's figures from each run's times. */
function latencyFigures(n: number, names: readonly Variant[], wall: Record<Variant, number[]>, cpu: Record<Variant, number[]>): Record<string, unknown> {
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
    // A key with three named limits and credits: one conditional write after the read (reported, not budgeted).
    verify_metered_ms: { p50: round(p50('verifyMetered')), p99: round(percentile(wall.verifyMetered, 99)) },
    verify_metered_p50_ratio: round(p50('verifyMetered') / p50('raw')),
    // The same key with leases on, as a hot key is verified: mostly admitted from its leased block (budgeted with verify).
    verify_metered_leased_ms: { p50: round(p50('verifyMeteredLeased')), p99: round(percentile(wall.verifyMeteredLeased, 99)) },
    verify_metered_leased_p50_ratio: round(p50('verifyMeteredLeased') / p50('raw')),
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
    within_budget: p50('verify') / p50('raw') <= BUDGET.verifyP50Ratio && p50('verifyMeteredLeased') / p50('raw') <= BUDGET.verifyP50Ratio,
  };
}

/**
 * The Lambda authorizer against the raw requests it needs in turn (the
 * value's GetItem, the use's UpdateItem, the team's GetItem), interleaved:
 * for a value the process has verified before (the three sent at once) and
 * for a first value (in turn). Reported, not budgeted (the budget is the
 * verify endpoint's).
 */
export async function authorizerLatency(
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
export function verifyWithoutIo(real: DynamoDBDocumentClient, value: string): () => Promise<void> {
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
export async function backToBack(run: () => Promise<void>): Promise<number> {
  const n = QUICK ? 5_000 : 20_000;
  for (let i = 0; i < n / 10; i++) await run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await run();
  return Number(process.hrtime.bigint() - started) / 1e6 / n;
}
