/**
 * `npm test`: the suite in two tiers, one after the other, each a jest run
 * of its own: the fast tier (unit and integration, the same run as
 * `npm run test:fast`), then the slow one (e2e, cdk, the slices of the
 * long runs: fuzz, properties, load suites, and the toolchain checks that
 * run eslint or a tsx script in a child process). A failing fast
 * tier ends the run before the slow one starts (its failures are the
 * cheaper to read). Prints each tier's time and the total against their
 * budgets (docs/architecture.md, Tests).
 *
 * Why two runs and not one jest run of the six projects: the fast tier's
 * own time is then measured inside `npm test` (CI no longer runs it a
 * second time to know it), and a broken handler fails within the fast
 * tier instead of after Chromium and the synth. The whole takes about what
 * the one run took (on 2 cores: 162 s + 217 s against 385 s; 163 s + 165 s on
 * 2026-11-29).
 *
 * `npm test -- <jest arguments>` (a path, `--selectProjects`, `-t`…) is one
 * plain jest run with those arguments, as before. `--tier fast` runs the
 * fast tier only (`npm run test:fast`). With `TEST_RESULTS_DIR` set, each
 * tier's jest results go to `<dir>/<tier>.json` and the timings to
 * `<dir>/timings.json` (`.ci/run` reads them).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

interface Tier {
  readonly name: 'fast' | 'slow';
  readonly title: string;
  readonly args: readonly string[];
  /** Seconds, or undefined when the tier has no budget of its own. */
  readonly budget?: number;
}

const TIERS: readonly Tier[] = [
  { name: 'fast', title: 'fast tier (unit, integration)', args: ['--selectProjects', 'unit', 'integration', '--maxWorkers=3'], budget: 60 },
  { name: 'slow', title: 'slow tier (e2e, cdk, long, tools)', args: ['--selectProjects', 'e2e', 'cdk', 'long', 'tools'] },
];
const WHOLE_BUDGET_SECONDS = 150;
const JEST = path.resolve(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
/**
 * V8 flags of the jest process, which its workers inherit (jest-worker forks
 * them with this process's `execArgv`). `--max-opt=1`: no optimizing
 * compiler, baseline code only. Every test file loads its own copy of the
 * AWS SDK and the handlers into a fresh module registry, so code the
 * optimizing compilers built for one file is thrown away with it; on 2 cores
 * the fast tier took 158 s and 282 s of CPU with the flag against 171 s and
 * 305 s without (2026-11-29). What the tests run is the same code.
 */
const NODE_FLAGS = ['--max-opt=1'];

/** Runs jest with `args` in this terminal; its exit status and seconds taken. */
function jest(args: readonly string[]): { status: number; seconds: number } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [...NODE_FLAGS, JEST, ...args], { stdio: 'inherit' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { status: run.status ?? 1, seconds };
}

const verdict = (seconds: number, budget: number | undefined): string =>
  `${seconds.toFixed(1)} s${budget === undefined ? '' : ` (budget ${budget} s: ${seconds <= budget ? 'within' : 'OVER'})`}`;

/** Runs `tiers` in order, stopping at the first that fails; the exit status. */
function runTiers(tiers: readonly Tier[]): number {
  const resultsDir = process.env.TEST_RESULTS_DIR;
  const timings: Record<string, number> = {};
  let status = 0;
  for (const tier of tiers) {
    const output = resultsDir ? ['--json', `--outputFile=${path.join(resultsDir, `${tier.name}.json`)}`] : [];
    const run = jest([...tier.args, ...output]);
    timings[tier.name] = run.seconds;
    console.log(`tests: ${tier.title} took ${verdict(run.seconds, tier.budget)}`);
    if (run.status !== 0) {
      status = run.status;
      console.log(`tests: the ${tier.title} failed${tier === tiers.at(-1) ? '' : '; the tiers after it did not run'}`);
      break;
    }
  }
  const total = Object.values(timings).reduce((sum, seconds) => sum + seconds, 0);
  if (tiers.length > 1) console.log(`tests: all tiers took ${verdict(total, WHOLE_BUDGET_SECONDS)}`);
  if (resultsDir) writeFileSync(path.join(resultsDir, 'timings.json'), `${JSON.stringify({ ...timings, total })}\n`);
  return status;
}

function main(argv: readonly string[]): number {
  if (argv.length === 0) return runTiers(TIERS);
  if (argv[0] === '--tier' && argv.length === 2) {
    const tier = TIERS.find(({ name }) => name === argv[1]);
    if (tier) return runTiers([tier]);
    console.error(`--tier takes one of: ${TIERS.map(({ name }) => name).join(', ')}`);
    return 2;
  }
  return jest(argv).status;
}

process.exitCode = main(process.argv.slice(2));
