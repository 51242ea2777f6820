/**
 * DynamoDB Local (AWS's own engine, a Java program) as a child process.
 *
 * The jar ships inside the npm package `amplify-dynamodb-simulator` (folder
 * `emulator/`), so no download happens at run time. The engine is spawned
 * attached to this process (never detached) and is killed when this process
 * exits, so a crashing parent does not leave a Java process behind.
 *
 * It listens on 127.0.0.1 only: the engine has no option for the interface
 * (it listens on every one), so it runs through a small launcher
 * (`local/java/LoopbackDynamoDBLocal.java`, compiled once with the JDK's
 * `javac`) that binds its connector to the loopback address. Without a
 * `javac` it runs as shipped, with a warning.
 *
 * With `-sharedDb -dbPath` the engine keeps one SQLite file that only ONE
 * engine may open at a time; `claimDataDir` below is the lock that the local
 * runtime (`npm start`) and `npm run bootstrap` share for that reason.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { superviseChild } from './child-process';

/** Credentials DynamoDB Local accepts; they never reach AWS. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';

export const JAVA_NOT_FOUND_MESSAGE = 'Java not found: DynamoDB Local needs a JDK. Install it with: apt-get install -y default-jdk-headless (Debian/Ubuntu)';

/** `java` is not installed (or not on PATH): the message is meant to be printed as is. */
export class JavaNotFoundError extends Error {
  constructor() {
    super(JAVA_NOT_FOUND_MESSAGE);
    this.name = 'JavaNotFoundError';
  }
}

export interface DynamoLocalOptions {
  /** TCP port of the engine. Default: a free port picked at start. */
  readonly port?: number;
  /** Folder of the persistent store (`-dbPath <dir> -sharedDb`). Ignored when `inMemory`. */
  readonly dbPath?: string;
  /** Keep everything in memory (`-inMemory`). Default: true when no `dbPath` is given. */
  readonly inMemory?: boolean;
  /** How long to wait for the engine to answer ListTables. Default 30 000 ms. */
  readonly startTimeoutMs?: number;
  /** Java executable. Default: `$JAVA_HOME/bin/java` when it exists, else `java` from PATH. */
  readonly java?: string;
}

export interface DynamoLocal {
  /** `http://127.0.0.1:<port>`, for `DYNAMODB_ENDPOINT`. */
  readonly endpoint: string;
  readonly port: number;
  /** Process id of the Java process. */
  readonly pid: number;
  /** Stops the engine (SIGTERM, then SIGKILL after 5 s). Safe to call twice. */
  stop(): Promise<void>;
}

/** The `emulator/` folder of `amplify-dynamodb-simulator`, holding `DynamoDBLocal.jar`. */
export function emulatorDir(): string {
  const packageJson = require.resolve('amplify-dynamodb-simulator/package.json');
  return path.join(path.dirname(packageJson), 'emulator');
}

/** `DYNAMODB_PORT` is taken: by another engine (whose data is not ours) or any other program. */
export class DynamoPortInUseError extends Error {
  constructor(readonly port: number) {
    super(
      `DYNAMODB_PORT ${port} is already in use (another DynamoDB Local, maybe another npm start, or another program): ` +
        'set DYNAMODB_PORT to a free port, or leave it unset to pick one.',
    );
    this.name = 'DynamoPortInUseError';
  }
}

/** Whether nothing listens on `port` (on any interface: DynamoDB Local binds them all). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('could not find a free port'))));
    });
  });
}

/** A low-level client for a DynamoDB Local endpoint (dummy credentials). */
export function localDynamoClient(endpoint: string, maxAttempts?: number): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts });
}

/** True when a DynamoDB(-compatible) engine answers ListTables at `endpoint`. */
export async function endpointAnswers(endpoint: string, timeoutMs = 2000): Promise<boolean> {
  const client = localDynamoClient(endpoint, 1);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

function javaCommand(explicit: string | undefined): string {
  if (explicit) return explicit;
  const home = process.env.JAVA_HOME;
  if (home) {
    const candidate = path.join(home, 'bin', 'java');
    if (existsSync(candidate)) return candidate;
  }
  return 'java';
}

/** The launcher that binds DynamoDB Local to 127.0.0.1 (the engine has no option for it). */
const LAUNCHER_SOURCE = path.join(__dirname, 'java', 'LoopbackDynamoDBLocal.java');
const LAUNCHER_CLASS = 'LoopbackDynamoDBLocal';

export const NO_JAVA_COMPILER_MESSAGE =
  'No Java compiler (javac) found: DynamoDB Local would listen on every network interface. Install a JDK (apt-get install -y default-jdk-headless) to bind it to 127.0.0.1 only.';

/** `javac` beside `java` (its JDK), else from PATH; undefined when there is none. */
function javacCommand(java: string): string | undefined {
  const candidates = [path.join(path.dirname(realpathOr(java)), 'javac'), 'javac'];
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['-version'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const onPath = spawnSync('sh', ['-c', `command -v ${JSON.stringify(file)}`], { encoding: 'utf8' }).stdout.trim();
    try {
      return onPath ? realpathSync(onPath) : file;
    } catch {
      return file;
    }
  }
}

/**
 * The folder holding the compiled loopback launcher, compiled once per
 * launcher source and engine jar into the OS temp folder (atomically: a
 * folder is renamed into place); undefined when no `javac` is installed.
 */
export function loopbackLauncher(emulator: string, java: string): string | undefined {
  const jar = path.join(emulator, 'DynamoDBLocal.jar');
  const digest = createHash('sha256')
    .update(readFileSync(LAUNCHER_SOURCE))
    .update(String(statSync(jar).size))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(tmpdir(), `apikeys-dynamodb-launcher-${digest}`);
  if (existsSync(path.join(dir, `${LAUNCHER_CLASS}.class`))) return dir;
  const javac = javacCommand(java);
  if (!javac) return undefined;
  const building = mkdtempSync(`${dir}.build-`);
  const compiled = spawnSync(
    javac,
    ['-nowarn', '-cp', `${jar}${path.delimiter}${path.join(emulator, 'DynamoDBLocal_lib', '*')}`, '-d', building, LAUNCHER_SOURCE],
    {
      encoding: 'utf8',
    },
  );
  if (compiled.status !== 0) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(`Could not compile ${LAUNCHER_SOURCE}: ${compiled.stderr || compiled.error?.message}`);
  }
  try {
    renameSync(building, dir);
  } catch {
    // Another process put the same launcher in place first.
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

function engineArguments(emulator: string, port: number, options: DynamoLocalOptions, launcher: string | undefined): string[] {
  const inMemory = options.inMemory ?? options.dbPath === undefined;
  const storage = inMemory ? ['-inMemory'] : ['-dbPath', path.resolve(options.dbPath as string), '-sharedDb'];
  const jar = path.join(emulator, 'DynamoDBLocal.jar');
  // The jar stays the last class path entry: stray detection (enginesServing) looks for it.
  const main = launcher ? ['-cp', `${launcher}${path.delimiter}${jar}`, LAUNCHER_CLASS] : ['-jar', jar];
  return [`-Djava.library.path=${path.join(emulator, 'DynamoDBLocal_lib')}`, ...main, '-port', String(port), '-disableTelemetry', ...storage];
}

/** Keeps the last few KB of the engine's output for error messages. */
function outputTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail.trim();
}

function unrefStreams(child: ChildProcess): void {
  for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Pids of DynamoDB Local processes serving `dbPath` (Linux `/proc`; an empty
 * list elsewhere).
 */
export function enginesServing(dbPath: string, port?: number): number[] {
  if (!existsSync('/proc')) return [];
  const wanted = path.resolve(dbPath);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone, or not ours to read
    }
    const at = argv.indexOf('-dbPath');
    const onPort = port === undefined || argv[argv.indexOf('-port') + 1] === String(port);
    if (argv.some((arg) => arg.endsWith('DynamoDBLocal.jar')) && at >= 0 && argv[at + 1] === wanted && onPort) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Whether the engine at `endpoint` serves `dbPath`: a DynamoDB Local process
 * with that store listens on that port (only one process can), read from
 * Linux `/proc`. Where there is no `/proc`, true (nothing to check with).
 */
export function endpointServesStore(endpoint: string, dbPath: string): boolean {
  if (!existsSync('/proc')) return true;
  const port = Number(new URL(endpoint).port);
  return enginesServing(dbPath, port).length > 0;
}

/**
 * Ends engines still serving `dbPath` although nobody holds it: a parent
 * killed with SIGKILL cannot run its exit hook, and its Java process would
 * otherwise share the store file with the next engine.
 */
async function stopStrayEngines(dbPath: string): Promise<void> {
  for (const pid of enginesServing(dbPath)) {
    console.warn(`Stopping a stray DynamoDB Local (pid ${pid}) still serving ${path.resolve(dbPath)}`);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      continue;
    }
    const deadline = Date.now() + 5000;
    while (enginesServing(dbPath).includes(pid) && Date.now() < deadline) await sleep(100);
    try {
      if (enginesServing(dbPath).includes(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // It ended on its own meanwhile.
    }
  }
}

class EngineExitedError extends Error {}

async function startOnPort(port: number, options: DynamoLocalOptions): Promise<DynamoLocal> {
  const emulator = emulatorDir();
  if (options.dbPath !== undefined && !(options.inMemory ?? false)) {
    mkdirSync(options.dbPath, { recursive: true });
    await stopStrayEngines(options.dbPath);
  }
  // Never attach to an engine that is not ours (a stray of this store was
  // just stopped): another engine on this port would answer our readiness
  // probe while our own Java fails to bind.
  if (!(await portIsFree(port))) throw new DynamoPortInUseError(port);

  const java = javaCommand(options.java);
  const launcher = loopbackLauncher(emulator, java);
  if (!launcher) console.warn(NO_JAVA_COMPILER_MESSAGE);
  const child = spawn(java, engineArguments(emulator, port, options, launcher), {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  const tail = outputTail(child);

  const { stop } = superviseChild(child);

  const failure = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' ? new JavaNotFoundError() : error);
    });
    child.once('exit', (code, signal) => {
      reject(new EngineExitedError(`DynamoDB Local exited during start (code ${code ?? signal}): ${tail()}`));
    });
  });
  failure.catch(() => undefined);

  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  try {
    for (;;) {
      const answered = await Promise.race([endpointAnswers(endpoint, 1000), failure]);
      if (answered) break;
      if (Date.now() > deadline) {
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${options.startTimeoutMs ?? 30_000} ms: ${tail()}`);
      }
      await Promise.race([sleep(100), failure]);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  // The engine runs until stop() or until this process exits; it must not by
  // itself keep a finished CLI alive.
  child.unref();
  unrefStreams(child);
  return { endpoint, port, pid: child.pid as number, stop };
}

/**
 * Starts DynamoDB Local and resolves once it answers ListTables.
 *
 * With `dbPath`, the caller must hold the data directory (`claimDataDir`):
 * any other engine still serving that store is taken for a stray and ended.
 *
 * @throws JavaNotFoundError when no Java runtime is installed.
 */
export async function startDynamoLocal(options: DynamoLocalOptions = {}): Promise<DynamoLocal> {
  if (options.port !== undefined) return startOnPort(options.port, options);
  // A free port can be taken between the probe and Java's bind: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(await findFreePort(), options);
    } catch (error) {
      if (!(error instanceof EngineExitedError || error instanceof DynamoPortInUseError) || attempt >= 3) throw error;
    }
  }
}

// ---------------------------------------------------------------------------
// The data-directory lock: `<DATA_DIR>/runtime.json`.

/** What `<DATA_DIR>/runtime.json` says about the process that owns the store. */
export interface RuntimeRecord {
  readonly pid: number;
  /** `start` for `npm start`, `bootstrap` for a bootstrap run with its own engine. */
  readonly owner: 'start' | 'bootstrap';
  readonly startedAt: string;
  /** Set once the engine answers. */
  readonly dynamodbEndpoint?: string;
  readonly keyTableName?: string;
  readonly auditTableName?: string;
  /** Set once the HTTP server listens (`npm start` only). */
  readonly baseUrl?: string;
}

export interface DataDirClaim {
  /** Adds facts (endpoint, URL) to the record. */
  update(patch: Partial<Omit<RuntimeRecord, 'pid' | 'owner'>>): void;
  /** Removes the record if it is still ours. */
  release(): void;
}

/** `<DATA_DIR>/runtime.json` is held by a live process. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: RuntimeRecord,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by ${holder.owner === 'start' ? 'npm start' : 'a bootstrap run'} (pid ${holder.pid}). ` +
        'Stop it first, or use another DATA_DIR.',
    );
    this.name = 'DataDirInUseError';
  }
}

export function runtimeFilePath(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process nobody reaped yet (a zombie, common in containers whose
  // first process does not reap) still answers signal 0, but holds nothing.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): trust signal 0
  }
}

/**
 * The record of the live process holding `dataDir`, or undefined. A record
 * left by a process that died without cleaning up is removed.
 */
export function readRuntimeRecord(dataDir: string): RuntimeRecord | undefined {
  const file = runtimeFilePath(dataDir);
  let record: RuntimeRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as RuntimeRecord;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable or half-written: treat as stale.
    unlinkSync(file);
    return undefined;
  }
  if (typeof record.pid === 'number' && (record.pid === process.pid || processAlive(record.pid))) return record;
  try {
    unlinkSync(file);
  } catch {
    // Someone else removed it first.
  }
  return undefined;
}

/**
 * Takes the data directory for this process by creating `runtime.json`
 * exclusively. Only one process may open the DynamoDB Local store of a
 * directory at a time.
 *
 * @throws DataDirInUseError when a live process holds it.
 */
export function claimDataDir(dataDir: string, owner: RuntimeRecord['owner']): DataDirClaim {
  mkdirSync(dataDir, { recursive: true });
  const file = runtimeFilePath(dataDir);
  let record: RuntimeRecord = { pid: process.pid, owner, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(record, null, 2) + '\n', { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw error;
      const holder = readRuntimeRecord(dataDir);
      if (holder) throw new DataDirInUseError(dataDir, holder);
    }
  }

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as RuntimeRecord;
      if (current.pid === process.pid) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);

  return {
    update(patch) {
      if (released) return;
      record = { ...record, ...patch };
      writeFileSync(file, JSON.stringify(record, null, 2) + '\n');
    },
    release,
  };
}
