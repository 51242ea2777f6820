/**
 * `npm run bootstrap`: argument checks, the JSON contract on stdout, and the
 * three places it writes to: an explicit DYNAMODB_ENDPOINT (the run's
 * engine), a DATA_DIR with `npm start` running (through its engine: shown
 * by test/local/start.e2e.test.ts, which has one running), and a DATA_DIR
 * with nothing running (its own engine, stopped afterwards).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openKeyStore, openLocalStore } from '../../local/key-stores';
import { ForeignEngineError, parseBootstrapArgs, UsageError } from '../../local/bootstrap-args';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { runtimeFilePath } from '../../local/data-dir-claim';
import { recordIssuedValue } from '../support/issued-values';
import { generateCreatedValue } from '../../lambda/domain/key-values';
import { startTestServer } from '../support/http';
import { tempDataDir } from '../support/local-runtime';
import { tsxArgs } from '../support/tsx';
import { auditRecordsOf, lookupItemOf } from '../support/store';

const ROOT = path.resolve(__dirname, '..', '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The environment without the run's engine, so DATA_DIR decides. */
function envWithoutEngine(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DYNAMODB_ENDPOINT;
  delete env.KEY_TABLE_NAME;
  delete env.AUDIT_TABLE_NAME;
  return env;
}

function runBootstrap(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, tsxArgs('local/bootstrap.ts', ...args), {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Java processes serving a store under `dir`. */
function enginesOn(dir: string): string[] {
  const result = spawnSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dir}`], { encoding: 'utf8' });
  return result.stdout.split('\n').filter(Boolean);
}

describe('parseBootstrapArgs', () => {
  const TEAM = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';

  it('defaults to a live key acting for a fresh user', () => {
    // Act
    const args = parseBootstrapArgs(['--team-id', TEAM.toUpperCase()]);

    // Assess
    expect(args).toMatchObject({ teamId: TEAM, environment: 'live', userIdGenerated: true, json: false, aws: false });
    expect(args.userId).toMatch(UUID);
  });

  it('takes every option', () => {
    // Act
    const args = parseBootstrapArgs(['--team-id', TEAM, '--environment', 'test', '--user-id', TEAM, '--name', '  Ops  ', '--json']);

    // Assess
    expect(args).toMatchObject({ environment: 'test', userId: TEAM, userIdGenerated: false, name: 'Ops', json: true });
  });

  it.each([
    [[], '--team-id is required'],
    [['--team-id', 'team-1'], '--team-id must be a UUID'],
    [['--team-id', TEAM, '--environment', 'prod'], '--environment must be "live" or "test"'],
    [['--team-id', TEAM, '--user-id', 'alice'], '--user-id must be a UUID'],
    [['--team-id', TEAM, '--name', '   '], '--name must be 1 to 100 characters'],
    [['--team-id', TEAM, '--name', 'x'.repeat(101)], '--name must be 1 to 100 characters'],
    // The create endpoint's rules: a pasted key value would be stored in the key's name and its audit record.
    [['--team-id', TEAM, '--name', `ops ${generateCreatedValue('sk', 'live', TEAM)}`], '--name must not contain an API key value'],
    [['--team-id', TEAM, '--name', 'Invoice\u202Efdp'], '--name must not contain bidirectional control characters'],
    [['--team-id', TEAM, '--force'], 'unknown option: --force'],
    [['--teamid', TEAM], 'unknown option: --teamid (did you mean --team-id?)'],
    [['--team-id', TEAM, '--env', 'test'], 'unknown option: --env (did you mean --environment?)'],
    [['--team-id', TEAM, 'extra'], 'unexpected argument: extra'],
  ])('refuses %j', (argv, message) => {
    // Act + Assess
    expect(() => parseBootstrapArgs(argv)).toThrow(UsageError);
    expect(() => parseBootstrapArgs(argv)).toThrow(message);
  });
});

describe('bootstrap --aws guards', () => {
  const args = () => parseBootstrapArgs(['--team-id', randomUUID(), '--aws']);
  const deployed = { KEY_TABLE_NAME: 'ApiKeyService-prod-KeyTable', AUDIT_TABLE_NAME: 'ApiKeyService-prod-AuditTable', KEY_HASH_PEPPER_SECRET_ARN: 'none' };
  const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper-AbCdEf';
  const secrets = mockClient(SecretsManagerClient);
  afterEach(() => secrets.reset());

  it("refuses a KEY_HASH_PEPPER left in the shell: the deployed functions read the pepper only from the stack's secret", async () => {
    await expect(openKeyStore(args(), { ...deployed, KEY_HASH_PEPPER: 'stray' }, () => undefined)).rejects.toThrow(UsageError);
    await expect(openKeyStore(args(), { ...deployed, KEY_HASH_PEPPER: 'stray' }, () => undefined)).rejects.toThrow('KEY_HASH_PEPPER is set');
  });

  it('without a pepper (KEY_HASH_PEPPER_SECRET_ARN=none), targets the named deployed tables and reads no secret', async () => {
    const store = await openKeyStore(args(), deployed, () => undefined);
    expect(store).toMatchObject({
      endpoint: undefined,
      keyTableName: deployed.KEY_TABLE_NAME,
      auditTableName: deployed.AUDIT_TABLE_NAME,
      awsPepper: undefined,
    });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it("refuses to guess the stack's pepper: KEY_HASH_PEPPER_SECRET_ARN (the stack output) is required, and must be an ARN or none", async () => {
    const withoutArn = { KEY_TABLE_NAME: deployed.KEY_TABLE_NAME, AUDIT_TABLE_NAME: deployed.AUDIT_TABLE_NAME };
    await expect(openKeyStore(args(), withoutArn, () => undefined)).rejects.toThrow('--aws needs KEY_HASH_PEPPER_SECRET_ARN');
    await expect(openKeyStore(args(), { ...deployed, KEY_HASH_PEPPER_SECRET_ARN: 'my-pepper' }, () => undefined)).rejects.toThrow(
      'must be a Secrets Manager secret ARN or "none"',
    );
  });

  it("with the stack's secret, hashes with the pepper read from it (GetSecretValue on exactly that ARN)", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'the stack pepper' });
    const store = await openKeyStore(
      args(),
      { ...deployed, KEY_HASH_PEPPER_SECRET_ARN: secretArn },
      () => undefined,
      () => new SecretsManagerClient({ region: 'eu-west-1' }),
    );
    expect(store.awsPepper).toBe('the stack pepper');
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([{ SecretId: secretArn }]);
  });
});

describe('bootstrap CLI', () => {
  it('exits 2 with one line on stderr for a bad argument', () => {
    // Act
    const result = runBootstrap(['--team-id', 'not-a-uuid']);

    // Assess
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual(['bootstrap: --team-id must be a UUID, got "not-a-uuid" (see --help)']);
  });

  it('writes a working manager key to DYNAMODB_ENDPOINT and prints exactly one JSON object', async () => {
    // Prepare
    const teamId = randomUUID();
    const userId = randomUUID();

    // Act
    const result = runBootstrap(['--team-id', teamId, '--user-id', userId, '--environment', 'test', '--json']);

    // Assess
    expect(result.status).toBe(0);
    const output = JSON.parse(result.stdout);
    recordIssuedValue(output.key);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(output).toMatchObject({ team_id: teamId, environment: 'test', type: 'sk', id: expect.any(String), key: expect.any(String) });
    expect(output.scopes).toContain('keys.manage');
    expect(result.stderr).not.toContain(output.key);
    expect(await lookupItemOf(output.key)).toBeDefined();
    expect(await auditRecordsOf(output.id)).toHaveLength(1);

    // Act: the key manages keys through the API
    const server = await startTestServer();
    try {
      const created = await server.request('POST', '/functions/v1/generate-api-key', {
        headers: { Authorization: `Bearer ${output.key}` },
        body: { name: 'From bootstrap', type: 'sk', environment: 'test', team_id: teamId },
      });

      // Assess
      expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
    } finally {
      await server.close();
    }
  });

  it('prints the value once for a human, with the shown-once warning and the generated user id', () => {
    // Act
    const result = runBootstrap(['--team-id', randomUUID()]);

    // Assess
    expect(result.status).toBe(0);
    const keyLine = result.stdout.split('\n').find((line) => line.startsWith('API key: '));
    const key = (keyLine ?? '').slice('API key: '.length);
    recordIssuedValue(key);
    expect(key).toMatch(/^svc_sk_live_/);
    expect(result.stdout.split(key)).toHaveLength(2);
    expect(result.stdout).toMatch(/shown only once/);
    expect(result.stdout).toMatch(/created_by: [0-9a-f-]{36} \(generated/);
  });

  describe('with a DATA_DIR', () => {
    const dataDirOf = tempDataDir('bootstrap-data-', { each: true });

    it('starts its own DynamoDB Local when npm start is not running, and stops it', () => {
      const dataDir = dataDirOf();
      // Act
      const result = runBootstrap(['--team-id', randomUUID(), '--json'], envWithoutEngine(dataDir));

      // Assess
      expect(result.status).toBe(0);
      const output = JSON.parse(result.stdout);
      recordIssuedValue(output.key);
      expect(output).toMatchObject({ key: expect.any(String), id: expect.any(String) });
      expect(result.stderr).toContain('starting DynamoDB Local');
      expect(existsSync(path.join(dataDir, 'dynamodb', 'shared-local-instance.db'))).toBe(true);
      expect(existsSync(runtimeFilePath(dataDir))).toBe(false);
      expect(enginesOn(dataDir)).toEqual([]);
    }, 90_000);
    // Bootstrap while npm start runs (through its engine, starting none): test/local/start.e2e.test.ts.
  });
});

describe("bootstrap never writes into an engine that is not the DATA_DIR's", () => {
  it('refuses when runtime.json names an engine that serves another store', async () => {
    // Prepare: a live holder record pointing at somebody else's engine (the test run's own, in memory)
    const foreign = { endpoint: process.env.DYNAMODB_ENDPOINT as string };
    expect(foreign.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bootstrap-foreign-'));
    writeFileSync(
      path.join(dataDir, 'runtime.json'),
      JSON.stringify({ pid: process.pid, owner: 'start', startedAt: new Date().toISOString(), dynamodbEndpoint: foreign.endpoint }),
    );
    try {
      // Act + Assess
      await expect(openLocalStore(dataDir, {}, () => undefined)).rejects.toThrow(ForeignEngineError);
      await expect(openLocalStore(dataDir, {}, () => undefined)).rejects.toThrow(`does not serve ${dataDir}`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
