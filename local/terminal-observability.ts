/**
 * What `npm start` prints: the very Powertools Logger and Metrics the
 * functions use in Lambda (levels, correlation id, redaction, EMF), written
 * for a person when stdout is a terminal and as Lambda writes them (one JSON
 * object per line) when it is not (a pipe, a file, CI). Every line, access
 * lines included, goes through the same Logger.
 *
 * Terminal:  `12:01:02.345 INFO  request  method=POST path=/functions/v1/… status=201 duration_ms=12`
 *            `12:01:02.346 METRIC Verifications=1 code=VALID`
 */
import type { Observability } from '../lambda/platform/observability';
import { sinkObservability } from '../lambda/platform/observability-sinks';

/** Fields a terminal line leaves out: they are the same on every line, or shown at its start. */
const QUIET_FIELDS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_request_id',
  'xray_trace_id',
]);

function clock(iso: unknown): string {
  const date = typeof iso === 'string' ? new Date(iso) : new Date();
  return date.toISOString().slice(11, 23);
}

function shown(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** One log line for a person: time, level, message, then `name=value` pairs. */
export function terminalLine(json: string): string {
  const fields = JSON.parse(json) as Record<string, unknown>;
  const rest = Object.entries(fields)
    .filter(([name]) => !QUIET_FIELDS.has(name))
    .map(([name, value]) => `${name}=${shown(value)}`)
    .join(' ');
  return `${clock(fields.timestamp)} ${String(fields.level ?? '').padEnd(5)} ${String(fields.message ?? '')}${rest ? `  ${rest}` : ''}`;
}

/** One EMF document for a person: each metric with its value and the dimensions it carries. */
export function terminalMetricLine(emf: Record<string, unknown>): string {
  const aws = emf._aws as { Timestamp?: number; CloudWatchMetrics?: { Dimensions?: string[][]; Metrics?: { Name: string }[] }[] } | undefined;
  const directive = aws?.CloudWatchMetrics?.[0];
  const dimensionNames = [...new Set((directive?.Dimensions ?? []).flat())].filter((name) => name !== 'service');
  const metrics = (directive?.Metrics ?? []).map((metric) => `${metric.Name}=${shown(emf[metric.Name])}`).join(' ');
  const dimensions = dimensionNames.map((name) => `${name}=${shown(emf[name])}`).join(' ');
  return `${clock(aws?.Timestamp ? new Date(aws.Timestamp).toISOString() : undefined)} METRIC ${metrics}${dimensions ? `  ${dimensions}` : ''}`;
}

export interface TerminalOutput {
  readonly out: NodeJS.WritableStream & { isTTY?: boolean };
  readonly err: NodeJS.WritableStream;
  /** Readable lines (default: whether `out` is a terminal) or Lambda's JSON lines. */
  readonly pretty?: boolean;
}

/** The local runtime's logger and metrics. */
export function terminalObservability(output: TerminalOutput = { out: process.stdout, err: process.stderr }): Observability {
  const pretty = output.pretty ?? output.out.isTTY === true;
  return sinkObservability(
    (level, json) => {
      const stream = level === 'WARN' || level === 'ERROR' || level === 'CRITICAL' ? output.err : output.out;
      stream.write(`${pretty ? terminalLine(json) : json}\n`);
    },
    (emf) => output.out.write(`${pretty ? terminalMetricLine(emf) : JSON.stringify(emf)}\n`),
  );
}
