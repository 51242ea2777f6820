/**
 * Java for DynamoDB Local: the `java` to run it with, and the small
 * launcher (`local/java/LoopbackDynamoDBLocal.java`, compiled once with the
 * JDK's `javac`) that binds the engine's connector to 127.0.0.1 (the engine
 * itself has no option for its interface).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const JAVA_NOT_FOUND_MESSAGE = 'Java not found: DynamoDB Local needs a JDK. Install it with: apt-get install -y default-jdk-headless (Debian/Ubuntu)';

/** `java` is not installed (or not on PATH): the message is meant to be printed as is. */
export class JavaNotFoundError extends Error {
  constructor() {
    super(JAVA_NOT_FOUND_MESSAGE);
    this.name = 'JavaNotFoundError';
  }
}
export function javaCommand(explicit: string | undefined): string {
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
export const LAUNCHER_CLASS = 'LoopbackDynamoDBLocal';

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

/** The JDK `java` belongs to: its home folder, and its `jar` tool when it has one. */
export function jdkOf(java: string): { readonly home: string; readonly jarTool: string | undefined } {
  const bin = path.dirname(realpathOr(java));
  const jarTool = path.join(bin, 'jar');
  return { home: path.dirname(bin), jarTool: existsSync(jarTool) ? jarTool : undefined };
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
 * `dir`, a cache of the OS temp folder whose code the engine runs (the
 * launcher, the class data): used only when this user owns it and nobody
 * else may write to it. Another user could otherwise put a class of their
 * own there first, under the name this cache is known by.
 */
export function ownCache(dir: string): string {
  const stat = statSync(dir);
  const uid = process.getuid?.();
  if ((uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) {
    throw new Error(`${dir} is another user's, or others may write to it: remove it (a cache of DynamoDB Local's launcher, rebuilt at the next start)`);
  }
  return dir;
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
  if (existsSync(path.join(dir, `${LAUNCHER_CLASS}.class`))) return ownCache(dir);
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
