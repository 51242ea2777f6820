/**
 * DynamoDB Local's class data archive (local/engine-class-data.ts): the
 * libraries read from the jar's manifest, and the archive's life: written by
 * an engine that exits, never by one that was killed, then mapped by the
 * engines after it. (test/local/dynamodb-local.test.ts starts engines with it.)
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveOptions, classLoadHookIn, manifestClassPath } from '../../local/engine-class-data';
import { ownCache } from '../../local/java-launcher';

/** The start of DynamoDBLocal.jar's manifest, as 1.25.1 ships it: 72-byte lines, continued after a space. */
const MANIFEST = [
  'Manifest-Version: 1.0',
  'Main-Class: com.amazonaws.services.dynamodbv2.local.main.ServerRunner',
  'Class-Path: . log4j2.xml DynamoDBLocal_lib/Apache-HttpComponents-HttpC',
  ' lient-4.5.x.jar DynamoDBLocal_lib/Apache-HttpComponents-HttpCore-4.4.',
  ' x.jar DynamoDBLocal_lib/sqlite4java.jar',
  'Bundle-Description: DynamoDB Local is a small client-side database and',
  '  server that mimics the DynamoDB service.',
  '',
].join('\r\n');

describe('the class path in the manifest', () => {
  it('joins the continued lines and keeps the order', () => {
    expect(manifestClassPath(MANIFEST)).toEqual([
      '.',
      'log4j2.xml',
      'DynamoDBLocal_lib/Apache-HttpComponents-HttpClient-4.5.x.jar',
      'DynamoDBLocal_lib/Apache-HttpComponents-HttpCore-4.4.x.jar',
      'DynamoDBLocal_lib/sqlite4java.jar',
    ]);
  });

  it('is empty when the manifest names none', () => {
    expect(manifestClassPath('Manifest-Version: 1.0\r\n')).toEqual([]);
  });
});

describe('the archive', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'engine-class-data-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const partOf = (options: { jvmOptions: readonly string[] }): string => {
    const option = options.jvmOptions.find((flag) => flag.startsWith('-XX:ArchiveClassesAtExit='));
    if (!option) throw new Error(`no archive to write in ${options.jvmOptions.join(' ')}`);
    return option.slice('-XX:ArchiveClassesAtExit='.length);
  };

  it('is written by the first engine that exits, into a file of its own, then mapped by the next one', () => {
    // Prepare
    const first = archiveOptions(dir);
    const part = partOf(first);
    writeFileSync(part, 'class data');

    // Act: the engine exited on its own (a JVM ends a SIGTERM with status 143, no signal)
    first.settle(null);
    const next = archiveOptions(dir);

    // Assess
    expect(first.archive).toBeUndefined();
    expect(path.dirname(part)).toBe(dir);
    expect(path.basename(part)).toMatch(new RegExp(`^engine-${process.pid}-[0-9a-f]{8}\\.jsa\\.part$`));
    expect(next.archive).toBe(path.join(dir, 'engine.jsa'));
    expect(readFileSync(path.join(dir, 'engine.jsa'), 'utf8')).toBe('class data');
    expect(next.jvmOptions).toEqual(['-XX:+IgnoreUnrecognizedVMOptions', '-Xlog:cds=off', '-Xlog:cds+dynamic=off', `-XX:SharedArchiveFile=${next.archive}`]);
    expect(readdirSync(dir)).toEqual(['engine.jsa']);
  });

  it('is not kept from an engine that was killed (it wrote none, or half of one)', () => {
    // Prepare
    const killed = archiveOptions(dir);
    writeFileSync(partOf(killed), 'half');

    // Act
    killed.settle('SIGKILL');

    // Assess
    expect(readdirSync(dir)).toEqual([]);
    expect(archiveOptions(dir).archive).toBeUndefined();
  });

  it('is not made from an empty or missing file', () => {
    const empty = archiveOptions(dir);
    writeFileSync(partOf(empty), '');
    empty.settle(null);
    archiveOptions(dir).settle(null);

    expect(existsSync(path.join(dir, 'engine.jsa'))).toBe(false);
  });

  it('being written by a process that no longer runs is removed; one of a running process is kept', () => {
    // Prepare: pid 2^22 + 1 is above Linux's pid_max
    const orphan = path.join(dir, 'engine-4194305-0badc0de.jsa.part');
    const live = path.join(dir, `engine-${process.pid}-00c0ffee.jsa.part`);
    writeFileSync(orphan, 'x');
    writeFileSync(live, 'x');

    // Act
    archiveOptions(dir);

    // Assess
    expect([existsSync(orphan), existsSync(live)]).toEqual([false, true]);
  });
});

describe('a JVM that hooks class loading (the engine then starts without class data)', () => {
  it.each([
    ['JAVA_TOOL_OPTIONS', '-XX:StartFlightRecording=filename=/tmp/engine.jfr', '-XX:StartFlightRecording'],
    ['JAVA_TOOL_OPTIONS', '-Xmx512m -javaagent:/opt/apm/agent.jar=service=keys', '-javaagent:'],
    ['JDK_JAVA_OPTIONS', '-agentlib:jdwp=transport=dt_socket,server=y,suspend=n', '-agentlib:'],
    ['_JAVA_OPTIONS', '-agentpath:/opt/profiler/libasyncProfiler.so=start', '-agentpath:'],
    ['JAVA_TOOL_OPTIONS', '-Xrunjdwp:transport=dt_socket', '-Xrun'],
  ])('%s=%s is named', (variable, options, hook) => {
    expect(classLoadHookIn({ [variable]: options })).toBe(`${variable} (${hook})`);
  });

  it('options that hook nothing, or none at all, name nothing', () => {
    expect(classLoadHookIn({})).toBeUndefined();
    expect(
      classLoadHookIn({ JAVA_TOOL_OPTIONS: '-Xmx512m -Djavax.net.ssl.trustStore=/etc/ssl/corp.jks', JDK_JAVA_OPTIONS: '-Dfile.encoding=UTF-8' }),
    ).toBeUndefined();
    // An option that only names an agent inside a value is not an agent.
    expect(classLoadHookIn({ JAVA_TOOL_OPTIONS: '-Dnote=-javaagent:x' })).toBeUndefined();
    // Variables the JVM does not read are not looked at.
    expect(classLoadHookIn({ JAVA_OPTS: '-javaagent:/opt/apm/agent.jar' })).toBeUndefined();
  });
});

describe('the cache folder the engine runs code from', () => {
  it('is used when this user owns it and nobody else may write to it, and refused otherwise', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engine-class-data-owner-'));
    try {
      const own = ownCache(dir);
      chmodSync(dir, 0o777);
      expect(own).toBe(dir);
      expect(() => ownCache(dir)).toThrow(`${dir} is another user's, or others may write to it: remove it`);
      chmodSync(dir, 0o775);
      expect(() => ownCache(dir)).toThrow('others may write to it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
