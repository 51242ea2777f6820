/**
 * `npm run bench:memory`: which memory size the hot path's functions should
 * have, from their init and duration measured at 128, 256, 512 and 1024 MB.
 *
 * Lambda gives a function CPU in proportion to its memory (1,769 MB is one
 * vCPU) by a CFS quota; here each size runs in a cgroup (v1 `cpu`
 * controller) with that quota: `cpu.cfs_quota_us` = size / 1769 × the
 * 100 ms period. For each size, a fresh Node process in the cgroup loads the
 * function's bundle (built as the stack builds it: lib/house-function.ts's
 * esbuild settings) and times it (init), then calls the handler 200 times in
 * a row against DynamoDB Local (duration). Sizes run in turn, three rounds,
 * rotated. Needs root and a writable `/sys/fs/cgroup/cpu` (it says so and
 * exits 2 otherwise).
 *
 * Prints a table on stderr and one JSON object on stdout: per function and
 * size the init and duration (p50, p90), the cost per million invocations at
 * cost/prices.json's prices (billed duration rounded up to the ms; init
 * amortized over `INVOCATIONS_PER_COLD_START`), and the size the rule picks:
 * the cheapest whose p90 duration is within 25 ms of the fastest size's.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import { createServices } from '../lambda/composition/services';
import { documentClientOf } from '../lambda/composition/dynamo';
import { systemClock } from '../lambda/platform/clock';
import { sinkObservability } from '../lambda/platform/observability-sinks';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { stackLikeBundle } from './bundle';
import { localDynamoClient, startDynamoLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';

const ROOT = path.resolve(__dirname, '..');
const SIZES = [128, 256, 512, 1024];
const ONE_VCPU_MB = 1769;
const CGROUP = '/sys/fs/cgroup/cpu';
const ROUNDS = 3;
const CALLS = 200;
/** Cold starts are rare on a busy hot path: init is spread over this many invocations. */
export const INVOCATIONS_PER_COLD_START = 10_000;
/** The pick: the cheapest size whose p90 duration is within this of the fastest size's. */
export const LATENCY_ALLOWANCE_MS = 25;
const PRICES = JSON.parse(readFileSync(path.join(ROOT, 'cost', 'prices.json'), 'utf8')) as Record<string, number>;
const say = (line: string) => process.stderr.write(`${line}\n`);

const FUNCTIONS = [
  { name: 'verify', entry: path.join(ROOT, 'lambda', 'routes', 'verify-api-key', 'handler.ts'), kind: 'verify' },
  { name: 'platform-authorizer', entry: path.join(ROOT, 'lambda', 'handlers', 'authorizer.ts'), kind: 'authorizer' },
] as const;

/** The bundle the stack would deploy (no tracer, no pepper client). */
function bundle(entry: string, outdir: string): Promise<string> {
  const outfile = path.join(outdir, `${path.basename(path.dirname(entry))}-${path.basename(entry, '.ts')}.js`);
  return stackLikeBundle(entry, outfile, { sameChain: true, define: { 'process.env.TRACER_BUNDLE': '"off"', 'process.env.PEPPER_BUNDLE': '"off"' } });
}

/** The child: load the bundle (timed), then call its handler `CALLS` times (each timed); results to `RESULT_FILE`. */
const CHILD = `
const t0 = process.hrtime.bigint();
const { handler } = require(process.env.BUNDLE);
const init = Number(process.hrtime.bigint() - t0) / 1e6;
const value = process.env.VALUE;
const event = (i) => process.env.KIND === 'verify'
  ? { httpMethod: 'POST', path: '/functions/v1/verify-api-key', resource: '/functions/v1/verify-api-key', headers: { 'Content-Type': 'application/json' }, multiValueHeaders: {}, body: JSON.stringify({ key: value }), isBase64Encoded: false, requestContext: { requestId: 'r' + i, identity: { sourceIp: '203.0.113.10' } } }
  : { type: 'REQUEST', methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/GET/tiles/1', headers: { Authorization: 'Bearer ' + value }, multiValueHeaders: {}, requestContext: { requestId: 'r' + i, identity: { sourceIp: '203.0.113.10' } } };
(async () => {
  const durations = [];
  for (let i = 0; i < ${CALLS}; i++) {
    const t = process.hrtime.bigint();
    await handler(event(i), { awsRequestId: 'r' + i, getRemainingTimeInMillis: () => 10000 });
    durations.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  require('node:fs').writeFileSync(process.env.RESULT_FILE, JSON.stringify({ init, durations }));
})();
`;

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function cgroupFor(sizeMb: number): string {
  const dir = path.join(CGROUP, `apikeys-bench-${sizeMb}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'cpu.cfs_period_us'), '100000');
  writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(Math.round((sizeMb / ONE_VCPU_MB) * 100_000)));
  return dir;
}

type Samples = Map<string, { init: number[]; durations: number[] }>;
interface Target {
  value: string;
  tables: { keyTable: string; auditTable: string };
  endpoint: string;
  dir: string;
}

/** One bundle's run in a fresh process inside the cgroup of `size` MB: its init and its calls' durations. */
function runAt(fn: (typeof FUNCTIONS)[number] & { file: string }, size: number, roundIndex: number, target: Target): { init: number; durations: number[] } {
  const resultFile = path.join(target.dir, `${fn.name}-${size}-${roundIndex}.json`);
  const run = spawnSync('sh', ['-c', `echo $$ > ${path.join(cgroupFor(size), 'cgroup.procs')} && exec "${process.execPath}" -e "$CHILD"`], {
    env: {
      PATH: process.env.PATH,
      CHILD,
      BUNDLE: fn.file,
      KIND: fn.kind,
      VALUE: target.value,
      RESULT_FILE: resultFile,
      KEY_TABLE_NAME: target.tables.keyTable,
      AUDIT_TABLE_NAME: target.tables.auditTable,
      DYNAMODB_ENDPOINT: target.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      VERIFY_GUESS_LIMIT_PER_MINUTE: '1000000',
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${fn.name} at ${size} MB failed: ${run.stderr}`);
  return JSON.parse(readFileSync(resultFile, 'utf8')) as { init: number; durations: number[] };
}

/** Every function at every size, ROUNDS rounds, the sizes' order rotating round by round. */
async function sample(target: Target): Promise<Samples> {
  const bundles = await Promise.all(FUNCTIONS.map(async (fn) => ({ ...fn, file: await bundle(fn.entry, target.dir) })));
  const samples: Samples = new Map();
  for (let r = 0; r < ROUNDS; r++) {
    const order = [...SIZES.slice(r % SIZES.length), ...SIZES.slice(0, r % SIZES.length)];
    for (const size of order) {
      for (const fn of bundles) {
        say(`memory: round ${r + 1}/${ROUNDS}, ${fn.name} at ${size} MB …`);
        const result = runAt(fn, size, r, target);
        const entry = samples.get(`${fn.name}@${size}`) ?? { init: [], durations: [] };
        entry.init.push(result.init);
        entry.durations.push(...result.durations.slice(10)); // the first calls open connections
        samples.set(`${fn.name}@${size}`, entry);
      }
    }
  }
  return samples;
}

/** A row per function and size: init and duration percentiles, and Lambda's price per million calls at that size. */
function rowsOf(samples: Samples) {
  return FUNCTIONS.flatMap((fn) =>
    SIZES.map((size) => {
      const { init, durations } = samples.get(`${fn.name}@${size}`) ?? { init: [], durations: [] };
      const p50 = percentile(durations, 50);
      const gbSeconds = (ms: number) => (Math.ceil(ms) / 1000) * (size / 1024);
      const usdPerMillion =
        PRICES.lambda_per_million_requests +
        gbSeconds(p50) * PRICES.lambda_arm_per_gb_second * 1e6 +
        (gbSeconds(percentile(init, 50)) * PRICES.lambda_arm_per_gb_second * 1e6) / INVOCATIONS_PER_COLD_START;
      return {
        function: fn.name,
        memory_mb: size,
        cpu_share: round(size / ONE_VCPU_MB, 3),
        init_ms_p50: round(percentile(init, 50)),
        duration_ms_p50: round(p50),
        duration_ms_p90: round(percentile(durations, 90)),
        lambda_usd_per_million: round(usdPerMillion, 3),
      };
    }),
  );
}

/** Each function's pick: the cheapest size within LATENCY_ALLOWANCE_MS of its fastest p90. */
function picksOf(rows: ReturnType<typeof rowsOf>): Record<string, number> {
  return Object.fromEntries(
    FUNCTIONS.map((fn) => {
      const mine = rows.filter((row) => row.function === fn.name);
      const fastest = Math.min(...mine.map((row) => row.duration_ms_p90));
      const eligible = mine.filter((row) => row.duration_ms_p90 <= fastest + LATENCY_ALLOWANCE_MS);
      const pick = eligible.reduce((best, row) => (row.lambda_usd_per_million < best.lambda_usd_per_million ? row : best));
      return [fn.name, pick.memory_mb];
    }),
  );
}

async function main(): Promise<void> {
  try {
    rmdirSync(cgroupFor(128));
  } catch (error) {
    say(`bench:memory needs root and a writable ${CGROUP} (the cgroup v1 cpu controller) to give each size Lambda's CPU share: ${(error as Error).message}`);
    process.exit(2);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-memory-'));
  const engine = await startDynamoLocal({ inMemory: true });
  const tables = { keyTable: KEY_TABLE.logicalName, auditTable: AUDIT_TABLE.logicalName };
  try {
    say('memory: bundling, starting DynamoDB Local, a team and a key …');
    const client = localDynamoClient(engine.endpoint);
    await ensureTables(client, tables);
    const services = createServices({
      db: documentClientOf(client),
      clock: systemClock,
      settings: { keyTableName: tables.keyTable, auditTableName: tables.auditTable, planRateLimit: 1_000_000, guessLimitPerMinute: 1_000_000 },
      observe: sinkObservability(
        () => undefined,
        () => undefined,
      ),
    });
    const teamId = randomUUID();
    await assignTeamPlan(services, teamId, 'default', localUsageKeys);
    const key = await bootstrapTeamKey(services, { teamId, environment: 'live', userId: randomUUID() });
    const samples = await sample({ value: key.key, tables, endpoint: engine.endpoint, dir });
    for (const size of SIZES) rmdirSync(path.join(CGROUP, `apikeys-bench-${size}`));
    client.destroy();
    const rows = rowsOf(samples);
    const picks = picksOf(rows);
    const columns = Object.keys(rows[0] ?? {});
    const cells = rows.map((row) => columns.map((column) => String(row[column as keyof typeof row])));
    const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i].length)));
    say('');
    for (const line of [columns, widths.map((w) => '-'.repeat(w)), ...cells]) say(line.map((cell, i) => cell.padEnd(widths[i])).join('  '));
    say(`pick (cheapest within ${LATENCY_ALLOWANCE_MS} ms of the fastest p90): ${JSON.stringify(picks)}`);
    process.stdout.write(`${JSON.stringify({ rounds: ROUNDS, calls: CALLS, latency_allowance_ms: LATENCY_ALLOWANCE_MS, rows, picks })}\n`);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  say((error as Error).stack ?? String(error));
  process.exit(2);
});
