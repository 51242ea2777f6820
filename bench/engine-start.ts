/**
 * Section 7: DynamoDB Local's start with its class data archive
 * (local/engine-class-data.ts) against a start without it, in alternating
 * rounds: the engine's own CPU (utime + stime from /proc) and the wall time
 * until it answers ListTables. Every `npm start`, bootstrap without a
 * runtime and engine of the test run pays this start.
 */
import { readFileSync } from 'node:fs';
import { startDynamoLocal } from '../local/dynamodb-local';
import { BUDGET, QUICK, median, round } from './figures';

/** CPU seconds a process has used so far (Linux /proc/<pid>/stat: utime + stime, in clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function oneStart(classData: boolean): Promise<{ cpu: number; ms: number }> {
  const started = process.hrtime.bigint();
  const engine = await startDynamoLocal({ inMemory: true, classData });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = cpuSecondsOf(engine.pid);
  await engine.stop();
  return { cpu, ms };
}

export async function engineStart(): Promise<Record<string, unknown>> {
  const rounds = QUICK ? 3 : 6;
  const without: Array<{ cpu: number; ms: number }> = [];
  const withArchive: Array<{ cpu: number; ms: number }> = [];
  // A first start with it writes the archive when there is none yet (at its exit); it is not measured.
  await oneStart(true);
  for (let round = 0; round < rounds; round++) {
    without.push(await oneStart(false));
    withArchive.push(await oneStart(true));
  }
  const figures = (runs: typeof without) => ({
    cpu_s_p50: round(median(runs.map((run) => run.cpu))),
    ready_ms_p50: Math.round(median(runs.map((run) => run.ms))),
  });
  const base = figures(without);
  const shared = figures(withArchive);
  const ratio = round(shared.cpu_s_p50 / base.cpu_s_p50);
  return {
    rounds,
    without_class_data: base,
    with_class_data: shared,
    cpu_p50_ratio: ratio,
    cpu_p50_ratio_budget: BUDGET.engineStartCpuRatio,
    within_budget: ratio <= BUDGET.engineStartCpuRatio,
  };
}

/** The section's line of the report. */
export function engineStartLine(engine: Record<string, unknown>): string {
  const without = engine.without_class_data as { cpu_s_p50: number; ready_ms_p50: number };
  const shared = engine.with_class_data as { cpu_s_p50: number; ready_ms_p50: number };
  return (
    `DynamoDB Local start (${engine.rounds as number} rounds in turn): with its class data ${shared.cpu_s_p50} s of CPU, ready in ${shared.ready_ms_p50} ms; ` +
    `without ${without.cpu_s_p50} s, ${without.ready_ms_p50} ms -> CPU p50 ratio ${engine.cpu_p50_ratio as number} (budget ${engine.cpu_p50_ratio_budget as number})`
  );
}
