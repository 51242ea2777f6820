/**
 * `npm run cost`'s model: the prices (cost/prices.json), the budgets and
 * assumptions, the bytes of the lines Lambda and API Gateway add, and what
 * one operation costs per million calls from what a call spends
 * (bench/cost-meters.ts measures that).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import type { FunctionFacts } from './cost-template';
import { ACCESS_LOG_FIELDS } from '../lib/api';

export const ROOT = path.resolve(__dirname, '..');
export const PRICES = JSON.parse(readFileSync(path.join(ROOT, 'cost', 'prices.json'), 'utf8')) as Record<string, number> & { date: string; region: string };
export const TABLES = { keyTable: KEY_TABLE.logicalName, auditTable: AUDIT_TABLE.logicalName };
export const say = (line: string) => process.stderr.write(`${line}\n`);

/** The hot path's own log lines and metrics per call, at most (docs/performance.md): a run that exceeds it exits 1. */
export const HOT_PATH_APP_LOG_BUDGET_BYTES = 400;

/** Billed duration assumption: per invocation, and per DynamoDB round trip (in-Region p50, single-digit ms). */
export const LAMBDA_MS_PER_INVOCATION = 3;
export const LAMBDA_MS_PER_ROUND_TRIP = 4;

// ---------------------------------------------------------------- the model

export type FrontDoor = 'rest-api' | 'http-api' | 'function-url' | 'platform-api';

/**
 * Which key a hot-path row measures: cold, hot (leased), or metered (three
 * named limits and credits; through its identity's credits; `-first`: each
 * call the first verification of a new key of a verified identity).
 */
export type KeyKind = 'hot' | 'cold' | 'metered' | 'metered-identity' | 'metered-identity-first' | 'metered-hot' | 'metered-identity-hot';

export interface Row {
  operation: string;
  front_door: FrontDoor;
  key?: KeyKind;
  usd_per_million: number;
  units: { read_units: number; write_units: number; log_bytes: number; lambda_ms: number; trace_rate: number };
  invocations: number;
  /** The functions' own lines (Powertools JSON and EMF, sampled DEBUG included), CloudWatch's per-event bytes included. */
  app_log_bytes: number;
  dynamodb_round_trips: number;
  measured_in_process_ms: number;
  usd: Record<string, number>;
}

export const DOOR_PRICE: Record<FrontDoor, number> = {
  'rest-api': PRICES.api_gateway_rest_per_million_requests,
  'http-api': PRICES.api_gateway_http_per_million_requests,
  'function-url': PRICES.lambda_function_url_per_million_requests,
  // Billed to the platform's own API call, which exists with or without this service.
  'platform-api': 0,
};

export const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

export function priced(
  facts: FunctionFacts,
  measured: { read: number; write: number; requests: number; logs: { always: number; debug: number }; ms: number },
  options: { operation: string; door: FrontDoor; invocations: number; key?: KeyKind },
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

/** Lambda's own lines per invocation (text format): START, END, REPORT, at their documented shape; an X-Ray line when traced. */
export function platformLineBytes(traceRate: number): number {
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
export function accessLogBytes(): number {
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

/** The table on stderr, the JSON line on stdout, and the hot path's log budget (exit 1 when over). */
export function report(rows: Row[]): void {
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
