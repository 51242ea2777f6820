/**
 * `npm run bootstrap -- --team-id <uuid> [--environment live|test]
 *   [--user-id <uuid>] [--name <text>] [--json] [--aws]`
 *
 * Writes a team's first `sk` key holding `keys.manage` (with its value
 * lookup and its audit record) and prints the value once, on stdout. With
 * `--json`, stdout is exactly one JSON object (run `npm run -s bootstrap`, or
 * npm's own banner lands on stdout too); every other line goes to stderr.
 *
 * Where the key is written, first match wins:
 * 1. `--aws`: the deployed tables. DynamoDB is reached with the default AWS
 *    credential chain (env, profile, SSO, instance role) and region
 *    (`AWS_REGION` / profile); `KEY_TABLE_NAME` and `AUDIT_TABLE_NAME` must
 *    name the stack's tables, and `KEY_HASH_PEPPER_SECRET_ARN` must be the
 *    stack's output `KeyHashPepperSecretArn` (the secret's ARN, or `none`):
 *    the pepper is read from that secret, exactly as the functions read it.
 *    `KEY_HASH_PEPPER` must be unset (in AWS the pepper lives only in
 *    Secrets Manager; a stray one in the shell would write a key nothing
 *    accepts).
 *    `DYNAMODB_ENDPOINT` must be unset.
 * 2. `DYNAMODB_ENDPOINT` set: that engine, as is (tables must exist).
 * 3. Otherwise the local store of `npm start` under `DATA_DIR` (default
 *    `.data/`). DynamoDB Local's `-sharedDb -dbPath` file may be opened by
 *    one engine only, so: when `npm start` runs on that directory
 *    (`<DATA_DIR>/runtime.json` names a live process and its engine
 *    answers), the key is written through that engine; when nothing runs,
 *    this command claims the directory, starts its own DynamoDB Local on the
 *    same file, creates the tables if needed, writes, and stops it.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import { endpointAnswers, endpointServesStore, localDynamoClient, startDynamoLocal, type DynamoLocal } from './dynamodb-local';
import { JavaNotFoundError } from './java-launcher';
import { DataDirInUseError, claimDataDir, readRuntimeRecord, type DataDirClaim } from './data-dir-claim';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readPepperSecret } from '../lambda/adapters/pepper';
import { closestName } from '../lambda/platform/closest-name';
import { DEFAULT_PLAN_NAME } from '../lambda/contract/plans';
import { assignTeamPlan, bootstrapKeyName, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { apiGatewayUsageKeys, operatorApiGatewayClient, usagePlanIdsFrom } from './api-gateway-usage-keys';
import { plansFrom } from './usage-plans';
import { systemClock } from '../lambda/platform/clock';
import { config } from '../lambda/composition/config';
import { documentClientOf } from '../lambda/composition/dynamo';
import { environmentObservability } from '../lambda/platform/observability';
import { createServices } from '../lambda/composition/services';
import { dataDirFrom, dynamoDbPath } from './settings';
import { ensureTables } from './tables';

export const USAGE =
  'Usage: npm run bootstrap -- --team-id <uuid> [--environment live|test] [--user-id <uuid>] [--name <text>] [--plan <name>] [--json] [--aws]';

/** The engine named by `<DATA_DIR>/runtime.json` does not serve that DATA_DIR's store. */
export class ForeignEngineError extends Error {
  constructor(dataDir: string, endpoint: string) {
    super(`The DynamoDB Local at ${endpoint} (from ${dataDir}/runtime.json) does not serve ${dataDir}: not writing there. Restart npm start on this DATA_DIR.`);
    this.name = 'ForeignEngineError';
  }
}

/** A bad command line: one line on stderr, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface BootstrapArgs {
  readonly teamId: string;
  readonly environment: 'live' | 'test';
  readonly userId: string;
  /** True when `--user-id` was not given and `userId` is a fresh UUID. */
  readonly userIdGenerated: boolean;
  readonly name?: string;
  readonly json: boolean;
  readonly aws: boolean;
  readonly help: boolean;
  /** The team's usage plan (`--plan`, default `default`): assigned on the first bootstrap, moved on a later one. */
  readonly plan: string;
}

const uuid = z.guid();

/** Parses and checks the command line (without `node` and the script). */
export function parseBootstrapArgs(argv: readonly string[]): BootstrapArgs {
  let values: Record<string, string | boolean | undefined>;
  const options = {
    'team-id': { type: 'string' },
    environment: { type: 'string' },
    'user-id': { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
    aws: { type: 'boolean', default: false },
    plan: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  } as const;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = (error as Error).message;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(message)?.[1] ?? message;
      const meant = closestName(option.replace(/^-+/, ''), Object.keys(options));
      throw new UsageError(`unknown option: ${option}${meant ? ` (did you mean --${meant}?)` : ''}`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`unexpected argument: ${/'([^']+)'/.exec(message)?.[1] ?? message}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(message.split('\n')[0]);
    throw error;
  }
  const help = values.help === true;
  const teamId = values['team-id'] as string | undefined;
  if (help) {
    return { teamId: '', environment: 'live', userId: '', userIdGenerated: false, json: false, aws: false, help, plan: DEFAULT_PLAN_NAME };
  }
  if (teamId === undefined) throw new UsageError('--team-id is required');
  if (!uuid.safeParse(teamId).success) throw new UsageError(`--team-id must be a UUID, got "${teamId}"`);

  const environment = (values.environment as string | undefined) ?? 'live';
  if (environment !== 'live' && environment !== 'test') throw new UsageError(`--environment must be "live" or "test", got "${environment}"`);

  const givenUserId = values['user-id'] as string | undefined;
  if (givenUserId !== undefined && !uuid.safeParse(givenUserId).success) {
    throw new UsageError(`--user-id must be a UUID, got "${givenUserId}"`);
  }

  let name = values.name as string | undefined;
  if (name !== undefined) {
    // The create endpoint's own rules for a name (a key value pasted here would be stored).
    const checked = bootstrapKeyName(name);
    if ('problem' in checked) throw new UsageError(`--name ${checked.problem}`);
    name = checked.name;
  }

  const plan = (values.plan as string | undefined) ?? DEFAULT_PLAN_NAME;
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(plan)) throw new UsageError(`--plan must be a plan name such as "default", got "${plan}"`);

  return {
    plan,
    teamId: teamId.toLowerCase(),
    environment,
    userId: (givenUserId ?? randomUUID()).toLowerCase(),
    userIdGenerated: givenUserId === undefined,
    name,
    json: values.json === true,
    aws: values.aws === true,
    help,
  };
}

/** Where the key goes, and how to let go of it afterwards. */
export interface KeyStore {
  readonly description: string;
  /** `--aws`: the pepper the deployed functions use (from the stack's secret), or undefined when the stack has none. */
  readonly awsPepper?: string;
  /** Endpoint override for DynamoDB, or undefined for AWS. */
  readonly endpoint: string | undefined;
  readonly keyTableName: string;
  readonly auditTableName: string;
  release(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long to wait for `npm start` to finish starting, or another bootstrap to end. */
const WAIT_FOR_HOLDER_MS = 60_000;

/**
 * The local store of `dataDir`: the running `npm start`'s engine, or an
 * engine of our own on the same file when nothing runs there.
 */
export async function openLocalStore(dataDir: string, env: NodeJS.ProcessEnv = process.env, say: (line: string) => void = () => undefined): Promise<KeyStore> {
  const deadline = Date.now() + WAIT_FOR_HOLDER_MS;
  for (;;) {
    const holder = readRuntimeRecord(dataDir);
    if (holder?.owner === 'start' && holder.dynamodbEndpoint && (await endpointAnswers(holder.dynamodbEndpoint))) {
      // Write only into this DATA_DIR's own engine, never into whatever answers on that port now.
      if (!endpointServesStore(holder.dynamodbEndpoint, dynamoDbPath(dataDir))) throw new ForeignEngineError(dataDir, holder.dynamodbEndpoint);
      say(`Using the DynamoDB Local of npm start (pid ${holder.pid}) at ${holder.dynamodbEndpoint}`);
      return {
        description: `npm start's DynamoDB Local (${dataDir})`,
        endpoint: holder.dynamodbEndpoint,
        keyTableName: env.KEY_TABLE_NAME || holder.keyTableName || KEY_TABLE.logicalName,
        auditTableName: env.AUDIT_TABLE_NAME || holder.auditTableName || AUDIT_TABLE.logicalName,
        release: async () => undefined,
      };
    }
    if (!holder) {
      let claim: DataDirClaim;
      try {
        claim = claimDataDir(dataDir, 'bootstrap');
      } catch (error) {
        if (error instanceof DataDirInUseError) continue; // someone was quicker: look again
        throw error;
      }
      return startOwnEngine(dataDir, claim, env, say);
    }
    if (Date.now() > deadline) throw new DataDirInUseError(dataDir, holder);
    await sleep(250);
  }
}

async function startOwnEngine(dataDir: string, claim: DataDirClaim, env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<KeyStore> {
  const keyTableName = env.KEY_TABLE_NAME || KEY_TABLE.logicalName;
  const auditTableName = env.AUDIT_TABLE_NAME || AUDIT_TABLE.logicalName;
  let engine: DynamoLocal | undefined;
  const release = async () => {
    await engine?.stop();
    claim.release();
  };
  try {
    say(`npm start is not running on ${dataDir}: starting DynamoDB Local on ${dynamoDbPath(dataDir)}`);
    engine = await startDynamoLocal({ dbPath: dynamoDbPath(dataDir) });
    claim.update({ dynamodbEndpoint: engine.endpoint, keyTableName, auditTableName });
    const client = localDynamoClient(engine.endpoint);
    try {
      await ensureTables(client, { keyTable: keyTableName, auditTable: auditTableName });
    } finally {
      client.destroy();
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { description: `DynamoDB Local on ${dataDir}`, endpoint: engine.endpoint, keyTableName, auditTableName, release };
}

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/;

/** Picks the store for the arguments and environment (see the file comment). */
export async function openKeyStore(
  args: BootstrapArgs,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
  secrets: () => Pick<SecretsManagerClient, 'send'> = () => new SecretsManagerClient({}),
): Promise<KeyStore> {
  const none = async () => undefined;
  if (args.aws) {
    if (env.DYNAMODB_ENDPOINT) throw new UsageError('--aws writes to the deployed tables: unset DYNAMODB_ENDPOINT');
    if (!env.KEY_TABLE_NAME || !env.AUDIT_TABLE_NAME) {
      throw new UsageError('--aws needs KEY_TABLE_NAME and AUDIT_TABLE_NAME (the deployed tables) in the environment');
    }
    // In AWS the pepper lives only in the stack's secret: a pepper left in the
    // operator's shell would write a key no deployed function accepts.
    if (env.KEY_HASH_PEPPER) {
      throw new UsageError(
        "--aws: KEY_HASH_PEPPER is set in this shell, but the deployed functions read their pepper only from the stack's secret; unset it, or the key would never authenticate",
      );
    }
    const secretArn = env.KEY_HASH_PEPPER_SECRET_ARN;
    if (!secretArn) {
      throw new UsageError('--aws needs KEY_HASH_PEPPER_SECRET_ARN: the stack output KeyHashPepperSecretArn (the secret ARN, or "none")');
    }
    if (secretArn !== 'none' && !SECRET_ARN.test(secretArn)) {
      throw new UsageError(`--aws: KEY_HASH_PEPPER_SECRET_ARN must be a Secrets Manager secret ARN or "none", got "${secretArn.slice(0, 200)}"`);
    }
    const awsPepper = secretArn === 'none' ? undefined : await readPepperSecret(secrets(), secretArn);
    if (awsPepper !== undefined) say(`Hashing with the pepper of ${secretArn}`);
    return { description: 'AWS', endpoint: undefined, keyTableName: env.KEY_TABLE_NAME, auditTableName: env.AUDIT_TABLE_NAME, awsPepper, release: none };
  }
  if (env.DYNAMODB_ENDPOINT) {
    return {
      description: env.DYNAMODB_ENDPOINT,
      endpoint: env.DYNAMODB_ENDPOINT,
      keyTableName: env.KEY_TABLE_NAME || KEY_TABLE.logicalName,
      auditTableName: env.AUDIT_TABLE_NAME || AUDIT_TABLE.logicalName,
      release: none,
    };
  }
  return openLocalStore(dataDirFrom(env), env, say);
}

/** What the command prints for a human: the value once, and that it is shown once. */
export function humanReport(
  result: { key: string; id: string; team_id: string; environment: string; scopes: string[]; created_at: string },
  args: BootstrapArgs,
): string {
  return [
    `Created a ${result.environment} sk key for team ${result.team_id}`,
    `  id:         ${result.id}`,
    `  scopes:     ${result.scopes.join(', ')}`,
    `  created_by: ${args.userId}${args.userIdGenerated ? ' (generated: pass --user-id to choose it)' : ''}`,
    `  created_at: ${result.created_at}`,
    '',
    `API key: ${result.key}`,
    'This value is shown only once and cannot be recovered (only its hash is stored): store it now.',
    '',
  ].join('\n');
}

function exitAfterWrite(text: string, code: number): void {
  process.stdout.write(text, () => process.exit(code));
}

async function main(argv: readonly string[]): Promise<void> {
  const say = (line: string) => console.error(line);
  let args: BootstrapArgs;
  try {
    args = parseBootstrapArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`bootstrap: ${error.message} (see --help)`);
    process.exit(2);
  }
  if (args.help) return exitAfterWrite(`${USAGE}\n`, 0);

  // Ctrl-C: stop our own engine and free the data directory. Before the
  // store is open, exiting is enough: the `exit` hooks do the same.
  let store: KeyStore | undefined;
  const interrupted = () => {
    if (!store) process.exit(130);
    void store.release().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    store = await openKeyStore(args, process.env, say);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`bootstrap: ${error.message}`);
      process.exit(2);
    }
    if (error instanceof JavaNotFoundError || error instanceof DataDirInUseError || error instanceof ForeignEngineError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  let output: string;
  try {
    // The store's own engine (or AWS with the operator's credentials), never DYNAMODB_ENDPOINT's.
    const client = store.endpoint ? localDynamoClient(store.endpoint) : new DynamoDBClient({});
    const services = createServices({
      db: documentClientOf(client),
      clock: systemClock,
      settings: {
        keyTableName: store.keyTableName,
        auditTableName: store.auditTableName,
        planRateLimit: config.planRateLimit,
        guessLimitPerMinute: config.guessLimitPerMinute,
        // AWS: the stack's pepper (its secret, or none); locally KEY_HASH_PEPPER, as npm start reads it.
        pepper: args.aws ? store.awsPepper : config.pepper,
      },
      // Errors only, on stderr: stdout carries the key (and nothing else with --json).
      observe: environmentObservability(undefined, { logLevel: 'ERROR' }),
    });
    // The team's usage plan first: its API Gateway key (AWS) or a local one, then its first key.
    const issuer = args.aws ? apiGatewayUsageKeys(operatorApiGatewayClient(), usagePlanIdsFrom(process.env)) : localUsageKeys;
    if (!args.aws && !(args.plan in plansFrom(process.env))) {
      throw new Error(`--plan "${args.plan}" is not a configured plan (plans: ${Object.keys(plansFrom(process.env)).join(', ')})`);
    }
    const assignment = await assignTeamPlan(services, args.teamId, args.plan, issuer);
    say(
      assignment.created
        ? `Team ${args.teamId}: usage plan "${assignment.plan}"`
        : assignment.movedFrom
          ? `Team ${args.teamId}: moved from usage plan "${assignment.movedFrom}" to "${assignment.plan}"`
          : `Team ${args.teamId}: usage plan "${assignment.plan}" (unchanged)`,
    );
    const result = await bootstrapTeamKey(services, { teamId: args.teamId, environment: args.environment, userId: args.userId, name: args.name });
    client.destroy();
    if (args.json) {
      if (args.userIdGenerated) say(`Acting user: ${args.userId} (generated)`);
      say('The key value is shown only once: store it now.');
      output = `${JSON.stringify(result)}\n`;
    } else {
      output = humanReport(result, args);
    }
  } catch (error) {
    await store.release();
    console.error(`bootstrap failed (${store.description}): ${(error as Error).message}`);
    process.exit(1);
  }
  await store.release();
  exitAfterWrite(output, 0);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`bootstrap failed: ${(error as Error)?.message ?? String(error)}`);
    process.exit(1);
  });
}
