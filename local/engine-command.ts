/**
 * DynamoDB Local's command line: where its classes come from (the loopback
 * launcher, the class data archive) and the JVM's settings.
 */
import path from 'node:path';
import { classLoadHookIn, engineClassData, type EngineClassData } from './engine-class-data';
import { LAUNCHER_CLASS, NO_JAVA_COMPILER_MESSAGE, jdkOf, loopbackLauncher } from './java-launcher';

/** Where the engine keeps its tables (DynamoLocalOptions' storage half). */
export interface EngineStorage {
  readonly dbPath?: string;
  readonly inMemory?: boolean;
}

/** Whether a command line argument is, or is a class path holding, DynamoDBLocal.jar. */
export const namesEngineJar = (arg: string): boolean => arg.split(path.delimiter).some((entry) => path.basename(entry) === 'DynamoDBLocal.jar');

/** How the engine's classes are found: the launcher's folder (undefined: none, the jar runs as shipped) or its class data. */
export interface EngineClasses {
  readonly launcher: string | undefined;
  readonly classData: EngineClassData | undefined;
}

/**
 * The launcher (compiled once; a warning without `javac`) and, when
 * `shareClassData` and the JVM's environment hooks no class loading
 * (`classLoadHookIn`), the class data.
 */
export function engineClasses(emulator: string, java: string, shareClassData: boolean, env: NodeJS.ProcessEnv = process.env): EngineClasses {
  const launcher = loopbackLauncher(emulator, java);
  if (!launcher) console.warn(NO_JAVA_COMPILER_MESSAGE);
  const jdk = launcher && shareClassData && !classLoadHookIn(env) ? jdkOf(java) : undefined;
  return { launcher, classData: jdk && launcher ? engineClassData(emulator, jdk.home, jdk.jarTool, launcher) : undefined };
}

/** The JVM's arguments for an engine on `port` with `classes`, its own temp folder and `options`' storage. */
export function engineArguments(emulator: string, port: number, options: EngineStorage, classes: EngineClasses, tempDir: string): string[] {
  const inMemory = options.inMemory ?? options.dbPath === undefined;
  const storage = inMemory ? ['-inMemory'] : ['-dbPath', path.resolve(options.dbPath as string), '-sharedDb'];
  const jar = path.join(emulator, 'DynamoDBLocal.jar');
  // Stray detection (enginesServing) looks for a class path entry named DynamoDBLocal.jar.
  const { launcher, classData } = classes;
  const main = classData
    ? [...classData.jvmOptions, '-cp', classData.classPath, LAUNCHER_CLASS]
    : launcher
      ? ['-cp', `${launcher}${path.delimiter}${jar}`, LAUNCHER_CLASS]
      : ['-jar', jar];
  // The quick (C1) compiler only: the engine starts on half the CPU (4 s instead of 8 on 2 cores), which every `npm start`
  // and test run pays, and a run of the whole test tier (14,000 requests) costs the same CPU either way.
  // The serial collector: one engine serves one machine's requests, and the default (G1) keeps threads of its own
  // busy beside them; a request costs 10 to 20 % less of the engine's CPU with it (1,000 Gets: 0.51 ms against
  // 0.58; conditional updates 0.80 against 1.02; 2026-11-29).
  // java.io.tmpdir: where the engine copies its SQLite library at each start, a folder removed with it (local/engine-temp.ts).
  return [
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Djava.library.path=${path.join(emulator, 'DynamoDBLocal_lib')}`,
    `-Djava.io.tmpdir=${tempDir}`,
    ...main,
    '-port',
    String(port),
    '-disableTelemetry',
    ...storage,
  ];
}
