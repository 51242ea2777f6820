/** What every section of `npm run bench` shares: the run's flags, the budgets, percentiles, rounding, the stderr line and table. */
import * as path from 'node:path';

/** `--quick`: fewer rounds and verifications. */
export const QUICK = process.argv.includes('--quick');
export const ROOT = path.resolve(__dirname, '..');

/** Budgets (issue 15); a run fails (exit 1) when one is missed. */
export const BUDGET = {
  bundleExtraBytes: 60 * 1024,
  archiverExtraBytes: 250 * 1024,
  initRatio: 1.3,
  archiverInitRatio: 1.6,
  verifyP50Ratio: 1.25,
  usageItemBytes: 1024,
  hotKeyWritesPerVerification: 0.1,
  /** DynamoDB Local's start with its class data archive against without: its CPU, p50 ratio. */
  engineStartCpuRatio: 0.8,
};

export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
export const median = (values: readonly number[]) => percentile(values, 50);
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const say = (line: string) => process.stderr.write(`${line}\n`);

export function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((column) => String(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i])).join('  ');
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
