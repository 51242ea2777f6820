/**
 * Where `npm run bootstrap` writes a team's first key (local/bootstrap.ts
 * says which wins): the deployed tables with the stack's pepper (`--aws`),
 * the engine `DYNAMODB_ENDPOINT` names, or the local store of `npm start`
 * (its running engine, or one of our own on the same file while we hold the
 * data directory).
 */
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import { endpointAnswers, endpointServesStore, localDynamoClient, startDynamoLocal, type DynamoLocal } from './dynamodb-local';
import { DataDirInUseError, claimDataDir, readRuntimeRecord, type DataDirClaim } from './data-dir-claim';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readPepperSecret } from '../lambda/adapters/pepper';
import { dataDirFrom, dynamoDbPath } from './settings';
import { ensureTables } from './tables';
import { BootstrapArgs, ForeignEngineError, UsageError } from './bootstrap-args';

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
