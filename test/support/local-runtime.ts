/**
 * The local runtime as a user runs it, for end-to-end tests: `npm start` as
 * a real process on its own DATA_DIR, and the bootstrap CLI against it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordIssuedValue } from './issued-values';
import { readRuntimeRecord } from '../../local/data-dir-claim';
import { tsxArgs } from './tsx';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * A fresh DATA_DIR for the tests of the enclosing describe, removed after
 * them (`each: true`: a fresh one for every test); read it inside a test.
 */
export function tempDataDir(prefix: string, { each = false }: { each?: boolean } = {}): () => string {
  let dir: string | undefined;
  (each ? beforeEach : beforeAll)(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  (each ? afterEach : afterAll)(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir) throw new Error('tempDataDir: read it inside a test');
    return dir;
  };
}

/** The environment of a local runtime of its own on `dataDir` (plus `extra`), free of the test run's engine. */
export function isolatedEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // The hourly cadence of the deployed checkpoint job unless a test asks for another: no checkpoint (an archive object,
  // an `audit.checkpoint` delivery) lands by chance in a run that counts what it wrote.
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', AUDIT_CHECKPOINT_SECONDS: '3600', ...extra };
  delete env.DYNAMODB_ENDPOINT;
  delete env.KEY_TABLE_NAME;
  delete env.AUDIT_TABLE_NAME;
  delete env.ARCHIVE_DIR;
  return env;
}

/**
 * The environment that injects a clock into the node processes started with
 * it (`npm start`, the bootstrap CLI: test/support/shifted-clock.cjs): their
 * `Date` runs `offsetMs` from the real one, at the real rate.
 */
export function shiftedClockEnv(offsetMs: number): NodeJS.ProcessEnv {
  const preload = `--require "${path.join(__dirname, 'shifted-clock.cjs')}"`;
  return { NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '), SHIFTED_CLOCK_OFFSET_MS: String(offsetMs) };
}

/** Processes whose command line names the data directory (DynamoDB Local, s3rver). */
export function childrenOn(dataDir: string): string[] {
  const result = spawnSync('pgrep', ['-af', dataDir], { encoding: 'utf8' });
  return result.stdout.split('\n').filter((line) => line && !line.includes('pgrep'));
}

export interface Running {
  baseUrl: string;
  stop(signal: NodeJS.Signals): Promise<number | null>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Sends a signal without waiting (SIGKILL: no exit hook runs). */
  kill(signal: NodeJS.Signals): void;
}

/** `npm start` on `dataDir`, resolved once it listens. */
export async function npmStart(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Running> {
  // tsx as a loader in the runtime's own process (not its CLI, which runs it in a child and relays signals: under
  // load the relay gives the child 30 ms to take a SIGTERM, then kills it and exits 143). A terminal's Ctrl-C
  // reaches both processes of the CLI at once; a test's signal reaches only the one it is sent to.
  const child = spawn(process.execPath, tsxArgs('local/start.ts'), {
    cwd: ROOT,
    env: isolatedEnv(dataDir, extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${output}`)));
  });
  return {
    baseUrl,
    stop: (signal) => {
      child.kill(signal);
      return exited;
    },
    output: () => output,
    kill: (signal) => {
      child.kill(signal);
    },
  };
}

/** The bootstrap CLI on `dataDir`: a team's first key (and plan), and what the CLI told the user on stderr. */
export function bootstrap(
  dataDir: string,
  teamId: string,
  extraArgs: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): { key: string; id: string; stderr: string } {
  const result = spawnSync(process.execPath, tsxArgs('local/bootstrap.ts', '--team-id', teamId, '--json', ...extraArgs), {
    cwd: ROOT,
    env: isolatedEnv(dataDir, extraEnv),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`bootstrap failed: ${result.stderr}`);
  const output = JSON.parse(result.stdout) as { key: string; id: string };
  recordIssuedValue(output.key);
  return { ...output, stderr: result.stderr };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGKILL for every process serving a DATA_DIR but the runtime (DynamoDB Local, the S3 API). */
function killEngines(dataDir: string, holder: number | undefined): void {
  for (const line of childrenOn(dataDir)) {
    const pid = Number(line.split(' ')[0]);
    if (pid === holder) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * SIGKILL for the runtime and every process serving its DATA_DIR; `engineFirst`:
 * the engines, then the runtime 300 ms later. Resolves with when the engine died.
 */
export async function killHard(running: Running, dataDir: string, engineFirst: boolean): Promise<number> {
  // The runtime itself (its pid in runtime.json: the process npmStart spawned), then the engines.
  const holder = readRuntimeRecord(dataDir)?.pid;
  if (engineFirst) {
    const engineDiedAt = Date.now();
    killEngines(dataDir, holder);
    await sleep(300);
    if (holder) process.kill(holder, 'SIGKILL');
    running.kill('SIGKILL');
    return engineDiedAt;
  }
  if (holder) process.kill(holder, 'SIGKILL');
  running.kill('SIGKILL');
  const engineDiedAt = Date.now();
  killEngines(dataDir, holder);
  return engineDiedAt;
}

/** A runtime shared by every describe of a test file. */
export interface SharedRuntime {
  running(): Running;
  dataDir(): string;
}

/**
 * `npm start` once for the whole test file (file-level hooks: call it at the
 * top of the file), on a data directory of its own, removed after the
 * runtime has stopped (DynamoDB Local writes there until it stops).
 */
export function sharedNpmStart(prefix: string, extraEnv: NodeJS.ProcessEnv = {}): SharedRuntime {
  let dir: string | undefined;
  let running: Running | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
    running = await npmStart(dir, extraEnv);
  }, 90_000);
  afterAll(async () => {
    await running?.stop('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    running: () => {
      if (!running) throw new Error('sharedNpmStart: read it inside a test or a hook');
      return running;
    },
    dataDir: () => {
      if (!dir) throw new Error('sharedNpmStart: read it inside a test or a hook');
      return dir;
    },
  };
}
