/**
 * DynamoDB Local as a child process (no Java left behind), the tables built
 * from the schema module (TTL, stream, index), and the data-directory lock
 * that keeps two engines off one store file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import path from 'node:path';
import { DescribeTableCommand, DescribeTimeToLiveCommand, ListTablesCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TEAM_INDEX, TTL_ATTRIBUTE } from '../../lambda/contract/tables';
import { emulatorDir, endpointAnswers, enginesServing, findFreePort, localDynamoClient, startDynamoLocal } from '../../local/dynamodb-local';
import { archiveOptions, engineClassData } from '../../local/engine-class-data';
import { engineArguments, engineClasses } from '../../local/engine-command';
import { JAVA_NOT_FOUND_MESSAGE, JavaNotFoundError, javaCommand, jdkOf } from '../../local/java-launcher';
import { DataDirInUseError, claimDataDir, readRuntimeRecord, runtimeFilePath } from '../../local/data-dir-claim';
import { ensureTables } from '../../local/tables';
import { tempDataDir } from '../support/local-runtime';

/** The local addresses of the sockets listening on `port` (Linux /proc/net/tcp and tcp6), IPv4-mapped ones as IPv4. */
function listeningAddresses(port: number): string[] {
  const addresses: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [local, , state] = line.trim().split(/\s+/).slice(1, 4);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hex, portHex] = local.split(':');
      if (parseInt(portHex, 16) !== port) continue;
      // IPv4 (or the last 32 bits of an IPv4-mapped IPv6 address), little-endian per 32-bit word.
      const v4 =
        hex
          .slice(-8)
          .match(/../g)
          ?.reverse()
          .map((byte) => parseInt(byte, 16))
          .join('.') ?? '';
      const mapped = hex.length === 8 || hex.slice(0, 24) === '0000000000000000FFFF0000';
      addresses.push(mapped ? v4 : hex === '0'.repeat(32) ? '::' : `ipv6:${hex}`);
    }
  }
  return addresses;
}

/** An IPv4 address of this machine that is not loopback, if it has one. */
function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

/** True when a TCP connection to host:port opens; the error code otherwise. */
function connects(host: string, port: number): Promise<true | string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The command line a running process was started with. */
const commandLineOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

/** The class path of a running engine, and the archive it maps (undefined: it writes one at its exit). */
function classDataOf(pid: number): { classPath: string[]; mapped: string | undefined } {
  const argv = commandLineOf(pid);
  const classPath = argv[argv.indexOf('-cp') + 1]!.split(path.delimiter);
  const shared = argv.find((arg) => arg.startsWith('-XX:SharedArchiveFile='))?.slice('-XX:SharedArchiveFile='.length);
  if (shared === undefined) {
    expect(argv.filter((arg) => arg.startsWith('-XX:ArchiveClassesAtExit='))).toHaveLength(1);
    return { classPath, mapped: undefined };
  }
  // The JVM maps an archive it uses into the process's memory.
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
  return { classPath, mapped: maps.includes(shared) ? shared : 'not mapped' };
}

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  return pid as number;
}

describe('startDynamoLocal', () => {
  /** The temp folders of this process's engines (the global setup's engine is this process's too when jest runs in band). */
  const engineFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`apikeys-dynamodb-engine-${process.pid}-`));

  it('starts an in-memory engine that answers on 127.0.0.1 only; stop(), even twice at once and once more, leaves no Java process and no temp file', async () => {
    // One engine for the four checks: each start costs about 2 s of the suite.
    // Prepare: the temp folder of an engine whose process was killed outright.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const orphan = path.join(tmpdir(), `apikeys-dynamodb-engine-${gone}-orphan`);
    mkdirSync(orphan);
    writeFileSync(path.join(orphan, 'sqlite-libsqlite4java.so'), '');

    const before = new Set(engineFolders());
    const ownFolders = () => engineFolders().filter((name) => !before.has(name));

    // Act
    const engine = await startDynamoLocal({ inMemory: true });
    const whileRunning = ownFolders().map((name) => readdirSync(path.join(tmpdir(), name)).filter((file) => file.endsWith('libsqlite4java.so')).length);
    const client = localDynamoClient(engine.endpoint);
    const tables = await client.send(new ListTablesCommand({}));
    client.destroy();
    const aliveWhileRunning = processAlive(engine.pid);
    const listening = listeningAddresses(engine.port);
    const outside = nonLoopbackAddress();
    const fromOutside = outside ? await connects(outside, engine.port) : 'no other interface';
    const fromLoopback = await connects('127.0.0.1', engine.port);
    const classes = classDataOf(engine.pid);
    await Promise.all([engine.stop(), engine.stop()]);
    await engine.stop();

    // Assess
    expect(tables.TableNames).toEqual([]);
    expect(engine.endpoint).toBe(`http://127.0.0.1:${engine.port}`);
    expect(aliveWhileRunning).toBe(true);
    expect(listening).toEqual(['127.0.0.1']);
    expect(fromOutside).not.toBe(true);
    expect(fromLoopback).toBe(true);
    expect(processAlive(engine.pid)).toBe(false);
    // The engine's copy of its SQLite library was in a folder of its own, gone with it, as is the killed one's.
    expect(whileRunning).toEqual([1]);
    expect(ownFolders()).toEqual([]);
    expect(existsSync(orphan)).toBe(false);
    // Its classes: the launcher's jar, a copy of the engine's jar, its libraries; the archive mapped, or written at its exit.
    const emulator = emulatorDir();
    expect(classes.classPath.slice(0, 2).map((entry) => path.relative(tmpdir(), entry))).toEqual([
      expect.stringMatching(/^apikeys-dynamodb-launcher-[0-9a-f]{16}\/class-data-[0-9a-f]{16}\/launcher\.jar$/),
      expect.stringMatching(/^apikeys-dynamodb-launcher-[0-9a-f]{16}\/class-data-[0-9a-f]{16}\/DynamoDBLocal\.jar$/),
    ]);
    const libraries = readdirSync(path.join(emulator, 'DynamoDBLocal_lib')).filter((name) => name.endsWith('.jar'));
    const copies = path.join(path.dirname(classes.classPath[1]!), 'DynamoDBLocal_lib');
    expect(classes.classPath.slice(2).sort()).toEqual(libraries.map((name) => path.join(copies, name)).sort());
    expect(libraries.filter((name) => statSync(path.join(copies, name)).size !== statSync(path.join(emulator, 'DynamoDBLocal_lib', name)).size)).toEqual([]);
    const archive = path.join(path.dirname(classes.classPath[1]!), 'engine.jsa');
    if (classes.mapped === undefined) expect(existsSync(archive)).toBe(true);
    else expect(classes.mapped).toBe(archive);
  });

  it('starts as without the archive when the archive is damaged', async () => {
    // Prepare: the class path the engines run with, and an archive of garbage
    const emulator = emulatorDir();
    const classes = engineClasses(emulator, javaCommand(undefined), true);
    const damaged = mkdtempSync(path.join(tmpdir(), 'engine-class-data-damaged-'));
    writeFileSync(path.join(damaged, 'engine.jsa'), 'not an archive');
    const options = archiveOptions(damaged);
    const temp = mkdtempSync(path.join(tmpdir(), 'engine-class-data-temp-'));
    const port = await findFreePort();
    const classData = { classPath: classes.classData!.classPath, ...options };

    // Act
    const java = spawn(javaCommand(undefined), engineArguments(emulator, port, { inMemory: true }, { launcher: classes.launcher, classData }, temp), {
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => java.once('exit', resolve));
    let answers = false;
    for (let attempt = 0; attempt < 100 && !answers && java.exitCode === null; attempt++) {
      answers = await endpointAnswers(`http://127.0.0.1:${port}`, 1000);
      if (!answers) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    java.kill('SIGTERM');
    await exited;
    rmSync(damaged, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });

    // Assess
    expect(options.jvmOptions).toContain(`-XX:SharedArchiveFile=${path.join(damaged, 'engine.jsa')}`);
    expect(answers).toBe(true);
  });

  it('starts without its class data, and answers, while a flight recording hooks class loading (JDK 17 aborts on that hook with an archive)', async () => {
    // Prepare: JAVA_TOOL_OPTIONS with a flight recording, as a user profiling the engine sets it; the recording into a folder of the test's own
    const recording = mkdtempSync(path.join(tmpdir(), 'engine-flight-'));
    const saved = process.env.JAVA_TOOL_OPTIONS;
    process.env.JAVA_TOOL_OPTIONS = `-XX:StartFlightRecording=filename=${path.join(recording, 'engine.jfr')}`;
    let argv: string[] | undefined;
    let tables: string[] | undefined;
    let recorded: boolean | undefined;

    // Act
    try {
      const engine = await startDynamoLocal({ inMemory: true });
      argv = commandLineOf(engine.pid);
      const client = localDynamoClient(engine.endpoint);
      tables = (await client.send(new ListTablesCommand({}))).TableNames;
      client.destroy();
      await engine.stop();
    } finally {
      if (saved === undefined) delete process.env.JAVA_TOOL_OPTIONS;
      else process.env.JAVA_TOOL_OPTIONS = saved;
      recorded = existsSync(path.join(recording, 'engine.jfr'));
      rmSync(recording, { recursive: true, force: true });
    }

    // Assess: the engine answered, mapped no archive and wrote none, and the recording (the hook) was really on
    expect(tables).toEqual([]);
    expect(argv?.filter((arg) => /^-XX:(SharedArchiveFile|ArchiveClassesAtExit)=/.test(arg))).toEqual([]);
    expect(recorded).toBe(true);
  });

  it('keeps tables in -dbPath across restarts, and each stop() ends its Java process', async () => {
    // Prepare
    const dbPath = mkdtempSync(path.join(tmpdir(), 'ddb-local-test-'));
    try {
      const first = await startDynamoLocal({ dbPath });
      const firstClient = localDynamoClient(first.endpoint);
      await ensureTables(firstClient, { keyTable: 'persisted-keys', auditTable: 'persisted-audit' });
      firstClient.destroy();
      await first.stop();

      // Act
      const second = await startDynamoLocal({ dbPath });
      const secondClient = localDynamoClient(second.endpoint);
      const tables = await secondClient.send(new ListTablesCommand({}));
      secondClient.destroy();
      await second.stop();

      // Assess
      expect(tables.TableNames).toEqual(['persisted-audit', 'persisted-keys']);
      expect(existsSync(path.join(dbPath, 'shared-local-instance.db'))).toBe(true);
      expect([processAlive(first.pid), processAlive(second.pid)]).toEqual([false, false]);
    } finally {
      rmSync(dbPath, { recursive: true, force: true });
    }
  });

  it('fails with the one-line install hint when Java is missing, and leaves no temp folder', async () => {
    // Prepare
    const before = engineFolders();

    // Act
    const started = startDynamoLocal({ inMemory: true, java: '/nonexistent/bin/java' });

    // Assess
    await expect(started).rejects.toBeInstanceOf(JavaNotFoundError);
    expect(engineFolders()).toEqual(before);
    await expect(started).rejects.toThrow(JAVA_NOT_FOUND_MESSAGE);
    expect(JAVA_NOT_FOUND_MESSAGE).toBe('Java not found: DynamoDB Local needs a JDK. Install it with: apt-get install -y default-jdk-headless (Debian/Ubuntu)');
  });

  it('ends a stray engine left on the same -dbPath (its parent was SIGKILLed) before starting', async () => {
    // Prepare: a Java process on the store that no one will stop
    const dbPath = mkdtempSync(path.join(tmpdir(), 'ddb-local-stray-'));
    const emulator = emulatorDir();
    const stray = spawn(
      'java',
      [
        `-Djava.library.path=${path.join(emulator, 'DynamoDBLocal_lib')}`,
        '-jar',
        path.join(emulator, 'DynamoDBLocal.jar'),
        '-port',
        String(await findFreePort()),
        '-disableTelemetry',
        '-dbPath',
        dbPath,
        '-sharedDb',
      ],
      { stdio: 'ignore' },
    );
    const strayExited = new Promise((resolve) => stray.once('exit', resolve));
    const warned = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      // Act
      const engine = await startDynamoLocal({ dbPath });
      const serving = enginesServing(dbPath);
      await engine.stop();

      // Assess
      await strayExited;
      expect(serving).toEqual([engine.pid]);
      expect(warned.mock.calls.join(' ')).toContain(`pid ${stray.pid}`);
      expect(enginesServing(dbPath)).toEqual([]);
    } finally {
      warned.mockRestore();
      stray.kill('SIGKILL');
      rmSync(dbPath, { recursive: true, force: true });
    }
  });
});

describe('ensureTables', () => {
  let client: DynamoDBClient;
  beforeAll(() => {
    client = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
  });
  afterAll(() => client.destroy());

  const describeTable = async (name: string) => (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
  const describeTtl = async (name: string) => (await client.send(new DescribeTimeToLiveCommand({ TableName: name }))).TimeToLiveDescription;

  it('creates both tables from the schema, with TTL on both and a NEW_IMAGE stream on the audit table', async () => {
    // Prepare
    const names = { keyTable: `keys-${randomUUID()}`, auditTable: `audit-${randomUUID()}` };

    // Act
    await ensureTables(client, names);

    // Assess
    const keyTable = await describeTable(names.keyTable);
    const auditTable = await describeTable(names.auditTable);
    expect(keyTable).toMatchObject({
      TableStatus: 'ACTIVE',
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        expect.objectContaining({
          IndexName: TEAM_INDEX,
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ],
    });
    expect(keyTable?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect(auditTable?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    expect(auditTable?.LatestStreamArn).toEqual(expect.any(String));
    expect(await describeTtl(names.keyTable)).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: TTL_ATTRIBUTE });
    expect(await describeTtl(names.auditTable)).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: TTL_ATTRIBUTE });
  });

  it('is idempotent', async () => {
    // Prepare
    const names = { keyTable: `keys-${randomUUID()}`, auditTable: `audit-${randomUUID()}` };
    await ensureTables(client, names);

    // Act
    await ensureTables(client, names);

    // Assess
    expect((await describeTable(names.auditTable))?.TableStatus).toBe('ACTIVE');
  });

  it('made the run’s tables (global setup)', async () => {
    // Assess
    const { TableNames } = await client.send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.arrayContaining([process.env.KEY_TABLE_NAME, process.env.AUDIT_TABLE_NAME]));
    expect(process.env.KEY_TABLE_NAME).toBe('test-api-keys');
    expect(process.env.AUDIT_TABLE_NAME).toBe('test-api-key-audit');
  });
});

describe('claimDataDir', () => {
  const dataDirOf = tempDataDir('data-dir-test-', { each: true });

  it('lets one process hold a data directory and records what it runs', () => {
    const dataDir = dataDirOf();
    // Prepare
    const claim = claimDataDir(dataDir, 'start');

    // Act
    claim.update({ dynamodbEndpoint: 'http://127.0.0.1:1' });
    const second = () => claimDataDir(dataDir, 'bootstrap');

    // Assess
    expect(second).toThrow(DataDirInUseError);
    expect(readRuntimeRecord(dataDir)).toMatchObject({ pid: process.pid, owner: 'start', dynamodbEndpoint: 'http://127.0.0.1:1' });
    claim.release();
    expect(existsSync(runtimeFilePath(dataDir))).toBe(false);
  });

  it('takes over a record left by a process that died', () => {
    const dataDir = dataDirOf();
    // Prepare
    const stale = { pid: deadPid(), owner: 'start', startedAt: new Date(0).toISOString() };
    writeFileSync(runtimeFilePath(dataDir), JSON.stringify(stale));

    // Act
    const claim = claimDataDir(dataDir, 'bootstrap');

    // Assess
    expect(JSON.parse(readFileSync(runtimeFilePath(dataDir), 'utf8'))).toMatchObject({ pid: process.pid, owner: 'bootstrap' });
    claim.release();
  });
});

describe('the class data folder', () => {
  const jarTool = jdkOf(javaCommand(undefined)).jarTool;
  const jar = (cwd: string, ...args: string[]) => {
    const made = spawnSync(jarTool as string, args, { cwd, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(made.stderr);
  };

  it('runs the engine from copies: its jar without the manifest, its libraries in the manifest’s order; one gone, all are built again', () => {
    // Prepare: an engine of two libraries and a launcher, made with the JDK's jar tool
    const root = mkdtempSync(path.join(tmpdir(), 'engine-class-data-build-'));
    try {
      const [emulator, launcher, files] = ['emulator', 'launcher', 'files'].map((name) => path.join(root, name));
      for (const dir of [path.join(emulator, 'DynamoDBLocal_lib'), launcher, path.join(files, 'engine')]) mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(files, 'manifest.txt'),
        'Class-Path: . log4j2.xml DynamoDBLocal_lib/zeta.jar DynamoDBLocal_lib/alpha.jar DynamoDBLocal_lib/gone.jar\n',
      );
      writeFileSync(path.join(files, 'engine', 'Engine.class'), 'engine');
      jar(files, '--create', '--file', path.join(emulator, 'DynamoDBLocal.jar'), '--manifest', 'manifest.txt', '-C', 'engine', '.');
      for (const name of ['zeta', 'alpha'])
        jar(files, '--create', '--no-manifest', '--file', path.join(emulator, 'DynamoDBLocal_lib', `${name}.jar`), 'manifest.txt');
      writeFileSync(path.join(emulator, 'sha256'), 'f00d');
      writeFileSync(path.join(launcher, 'LoopbackDynamoDBLocal.class'), 'launcher');

      // Act
      const first = engineClassData(emulator, '/no/such/jdk', jarTool, launcher)!;
      const dir = path.dirname(first.classPath.split(path.delimiter)[0]!);
      const listing = spawnSync(jarTool as string, ['tf', path.join(dir, 'DynamoDBLocal.jar')], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean);
      rmSync(path.join(dir, 'DynamoDBLocal_lib', 'alpha.jar'));
      const again = engineClassData(emulator, '/no/such/jdk', jarTool, launcher)!;

      // Assess
      expect(path.basename(dir)).toMatch(/^class-data-[0-9a-f]{16}$/);
      expect(first.classPath.split(path.delimiter).map((entry) => path.relative(dir, entry))).toEqual([
        'launcher.jar',
        'DynamoDBLocal.jar',
        'DynamoDBLocal_lib/zeta.jar',
        'DynamoDBLocal_lib/alpha.jar',
      ]);
      expect(listing.sort()).toEqual(['Engine.class', 'META-INF/']);
      expect(again.classPath).toBe(first.classPath);
      expect(existsSync(path.join(dir, 'DynamoDBLocal_lib', 'alpha.jar'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
