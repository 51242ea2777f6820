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
 * engine may open at a time; `claimDataDir` (local/data-dir-claim.ts) is the lock that the local
 * runtime (`npm start`) and `npm run bootstrap` share for that reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_ENGINE_KEY_ID, localEngineClientConfig } from '../lambda/composition/local-engine';
import { superviseChild } from './child-process';
import { engineTempDir } from './engine-temp';
import { engineArguments, engineClasses, namesEngineJar } from './engine-command';
import { JavaNotFoundError, javaCommand } from './java-launcher';

/** Credentials DynamoDB Local accepts; they never reach AWS. */
export const LOCAL_CREDENTIALS = { accessKeyId: LOCAL_ENGINE_KEY_ID, secretAccessKey: LOCAL_ENGINE_KEY_ID } as const;
export const LOCAL_REGION = 'us-east-1';

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
  /** Share the engine's class data through an archive (local/engine-class-data.ts). Default: true. */
  readonly classData?: boolean;
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

/** A low-level client for a DynamoDB Local endpoint (dummy credentials, requests unsigned: `localEngineClientConfig`). */
export function localDynamoClient(endpoint: string, maxAttempts?: number): DynamoDBClient {
  return new DynamoDBClient({ ...localEngineClientConfig(endpoint, LOCAL_REGION), maxAttempts });
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
    if (argv.some(namesEngineJar) && at >= 0 && argv[at + 1] === wanted && onPort) pids.push(Number(entry));
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
  // The environment the JVM gets is the one whose options decide on the class data (classLoadHookIn).
  const env = process.env;
  const classes = engineClasses(emulator, java, options.classData ?? true, env);
  const temp = engineTempDir();
  const child = spawn(java, engineArguments(emulator, port, options, classes, temp.dir), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  const tail = outputTail(child);

  const { stop, exited } = superviseChild(child);
  // `exited` settles on the engine's exit, or on a spawn that failed (no Java), which has no exit.
  void exited.then(temp.remove);
  child.once('exit', (_code, signal) => classes.classData?.settle(signal));

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
