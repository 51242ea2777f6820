/**
 * Class data sharing for DynamoDB Local (the JDK's AppCDS): the engine's
 * classes are parsed and verified once, written to an archive, and mapped
 * from it at every later start. A start to its first answer then takes
 * 0.84 s of CPU instead of 1.56 (`npm run bench`, section 7; 2026-11-30, 2
 * cores), which every `npm start`, every bootstrap without a runtime and
 * every engine of the test run pays.
 *
 * The JDK archives classes from jar files only, and DynamoDBLocal.jar's
 * manifest puts its own folder (`.`) on the class path. So the engine runs
 * from a copy of the jar without a manifest, followed by copies of the
 * libraries the manifest names, in its order, and the launcher as a jar.
 * An archive holds the paths of its class path: all of it lives in a folder
 * of the launcher's cache (105 MB with the archive) keyed by the JDK and the
 * engine's checksum, so that every checkout shares it; built once
 * (atomically: a folder renamed into place).
 *
 * The archive: an engine started while there is none writes one when it
 * exits (`-XX:ArchiveClassesAtExit`, into a file of its own), which is
 * renamed into place once the engine has exited; an engine killed outright
 * writes none. The JDK ignores an archive it cannot use (another JDK, a
 * damaged file) and starts as without it; so does a JVM without these
 * options (`-XX:+IgnoreUnrecognizedVMOptions`). An engine whose JVM hooks
 * class loading (`classLoadHookIn`: an agent or the flight recorder named in
 * the JVM's environment variables) starts without the class data: JDK 17
 * aborts when such a hook meets a class from a dynamic archive.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from './process-alive';

const ARCHIVE = 'engine.jsa';
const CLASS_PATH = 'class-path.txt';
const PART_SUFFIX = '.jsa.part';

export interface EngineClassData {
  /** The class path: the launcher's jar, the engine's jar (a copy without manifest), its libraries. */
  readonly classPath: string;
  /** The JVM options: map the archive, or write one at exit. */
  readonly jvmOptions: readonly string[];
  /** The archive the engine maps; undefined when it writes one at exit. */
  readonly archive: string | undefined;
  /** Call once the engine has exited (with the signal that ended it): an archive it wrote is moved into place. */
  readonly settle: (signal: NodeJS.Signals | null) => void;
}

/** The paths the manifest's `Class-Path` names (space separated, continued on lines that start with a space). */
export function manifestClassPath(manifest: string): string[] {
  const lines = manifest.replace(/\r/g, '').split('\n');
  const joined: string[] = [];
  for (const line of lines) {
    if (line.startsWith(' ') && joined.length > 0) joined[joined.length - 1] += line.slice(1);
    else joined.push(line);
  }
  const attribute = joined.find((line) => line.startsWith('Class-Path:'));
  return attribute ? attribute.slice('Class-Path:'.length).trim().split(/ +/).filter(Boolean) : [];
}

function run(tool: string, args: readonly string[], cwd?: string): void {
  const result = spawnSync(tool, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
}

/** Builds the jars and the class path file into `dir` (through a folder renamed into place). */
function buildJars(dir: string, jarTool: string, emulator: string, launcherDir: string): void {
  const building = mkdtempSync(`${dir}.build-`);
  try {
    const extracted = path.join(building, 'extracted');
    mkdirSync(extracted);
    run(jarTool, ['xf', path.join(emulator, 'DynamoDBLocal.jar')], extracted);
    const manifest = path.join(extracted, 'META-INF', 'MANIFEST.MF');
    const libraries = manifestClassPath(readFileSync(manifest, 'utf8')).filter((entry) => entry.endsWith('.jar') && existsSync(path.join(emulator, entry)));
    rmSync(manifest);
    for (const library of libraries) {
      mkdirSync(path.dirname(path.join(building, library)), { recursive: true });
      copyFileSync(path.join(emulator, library), path.join(building, library));
    }
    run(jarTool, ['--create', '--no-manifest', '--file', path.join(building, 'DynamoDBLocal.jar'), '-C', extracted, '.']);
    rmSync(extracted, { recursive: true, force: true });
    const classes = readdirSync(launcherDir).filter((name) => name.endsWith('.class'));
    run(jarTool, ['--create', '--no-manifest', '--file', path.join(building, 'launcher.jar'), '-C', launcherDir, ...classes]);
    const classPath = ['launcher.jar', 'DynamoDBLocal.jar', ...libraries].map((entry) => path.join(dir, entry));
    writeFileSync(path.join(building, CLASS_PATH), classPath.join('\n'));
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(path.join(dir, CLASS_PATH))) throw error; // not another process's folder, put in place first
  }
}

/** The class path written into `dir`, or undefined when there is none. */
function classPathOf(dir: string): string[] | undefined {
  const file = path.join(dir, CLASS_PATH);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n') : undefined;
}

/** Removes archives being written by processes that no longer run (they were killed before renaming theirs). */
function removeOrphanParts(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(PART_SUFFIX)) continue;
    const owner = Number(name.split('-')[1]);
    if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * What names the JDK and the engine: a new JDK or engine gets a folder (and an
 * archive) of its own. The engine by the checksum its package ships
 * (`emulator/sha256`), not by its path: every checkout and install of the same
 * engine shares one folder.
 */
function identityOf(javaHome: string, emulator: string): string {
  const modules = path.join(javaHome, 'lib', 'modules');
  const stat = existsSync(modules) ? statSync(modules) : undefined;
  const jdk = stat ? `${modules}:${stat.size}:${stat.mtimeMs}` : javaHome;
  const checksum = path.join(emulator, 'sha256');
  const engine = existsSync(checksum) ? readFileSync(checksum, 'utf8').trim() : `${statSync(path.join(emulator, 'DynamoDBLocal.jar')).size}`;
  return createHash('sha256').update(`${jdk}\n${engine}`).digest('hex').slice(0, 16);
}

/** The JVM options for an engine whose class data lives in `dir`: map its archive, or write one at exit. */
export function archiveOptions(dir: string): Pick<EngineClassData, 'jvmOptions' | 'archive' | 'settle'> {
  removeOrphanParts(dir);
  const archive = path.join(dir, ARCHIVE);
  const common = ['-XX:+IgnoreUnrecognizedVMOptions', '-Xlog:cds=off', '-Xlog:cds+dynamic=off'];
  if (existsSync(archive)) return { jvmOptions: [...common, `-XX:SharedArchiveFile=${archive}`], archive, settle: () => undefined };
  const part = path.join(dir, `engine-${process.pid}-${randomBytes(4).toString('hex')}${PART_SUFFIX}`);
  const settle = (signal: NodeJS.Signals | null): void => {
    try {
      // A JVM ends a SIGTERM by exiting (status 143) after writing the archive; a killed one wrote none, or half of one.
      if (signal === null && existsSync(part) && statSync(part).size > 0) renameSync(part, archive);
      else rmSync(part, { force: true });
    } catch {
      rmSync(part, { force: true });
    }
  };
  return { jvmOptions: [...common, `-XX:ArchiveClassesAtExit=${part}`], archive: undefined, settle };
}

/** The environment variables the `java` launcher and the JVM read options from. */
const JVM_OPTION_VARIABLES = ['JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', '_JAVA_OPTIONS'] as const;

/** Options that hook class loading: a Java or native agent (a profiler, an APM agent, a debugger) or a flight recording. */
const CLASS_LOAD_HOOK = /(?:^|\s)(-javaagent:|-agentlib:|-agentpath:|-Xrun|-XX:StartFlightRecording)/;

/**
 * The variable of `env` whose options hook class loading, and the option;
 * undefined when none does. OpenJDK 17.0.15 aborts (SIGABRT, in
 * `KlassFactory::check_shared_class_file_load_hook`) at the first class it
 * maps from a dynamic archive while a class file load hook is on, so such an
 * engine runs without class data: as before the archive, only slower to start.
 */
export function classLoadHookIn(env: NodeJS.ProcessEnv): string | undefined {
  for (const variable of JVM_OPTION_VARIABLES) {
    const hook = CLASS_LOAD_HOOK.exec(env[variable] ?? '')?.[1];
    if (hook) return `${variable} (${hook})`;
  }
  return undefined;
}

/**
 * The class path and options for an engine that shares its class data; undefined
 * without a `jar` tool in the JDK (the engine then runs from the launcher's folder
 * and the shipped jar, as before).
 */
export function engineClassData(emulator: string, javaHome: string, jarTool: string | undefined, launcherDir: string): EngineClassData | undefined {
  if (!jarTool) return undefined;
  const dir = path.join(launcherDir, `class-data-${identityOf(javaHome, emulator)}`);
  let entries = classPathOf(dir);
  if (!entries || !entries.every((entry) => existsSync(entry))) {
    // None yet, or a jar of it gone (a temp folder cleaner removes old files): built afresh.
    if (entries) rmSync(dir, { recursive: true, force: true });
    buildJars(dir, jarTool, emulator, launcherDir);
    entries = classPathOf(dir) ?? [];
  }
  return { classPath: entries.join(path.delimiter), ...archiveOptions(dir) };
}
