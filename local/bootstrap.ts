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
import { localDynamoClient } from './dynamodb-local';
import { JavaNotFoundError } from './java-launcher';
import { DataDirInUseError } from './data-dir-claim';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { apiGatewayUsageKeys, operatorApiGatewayClient, usagePlanIdsFrom } from './api-gateway-usage-keys';
import { plansFrom } from './usage-plans';
import { systemClock } from '../lambda/platform/clock';
import { config } from '../lambda/composition/config';
import { documentClientOf } from '../lambda/composition/dynamo';
import { environmentObservability } from '../lambda/platform/observability';
import { createServices } from '../lambda/composition/services';
import { ForeignEngineError, USAGE, UsageError, parseBootstrapArgs, type BootstrapArgs } from './bootstrap-args';
import { KeyStore, openKeyStore } from './key-stores';

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

/** The team's usage plan (its API Gateway key in AWS, or a local one), then its first key: what the command prints. */
async function issueKey(store: KeyStore, args: BootstrapArgs, say: (line: string) => void): Promise<string> {
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
  if (!args.json) return humanReport(result, args);
  if (args.userIdGenerated) say(`Acting user: ${args.userId} (generated)`);
  say('The key value is shown only once: store it now.');
  return `${JSON.stringify(result)}\n`;
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
    output = await issueKey(store, args, say);
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
