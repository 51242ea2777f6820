/**
 * The value-hash pepper in AWS: a Secrets Manager secret named by
 * `KEY_HASH_PEPPER_SECRET_ARN` (stack context `keyHashPepperSecretArn`),
 * read once per cold start before the first request (services `ready`) and
 * kept in memory. `config.pepper` then returns it; reading `config.pepper`
 * before it is loaded throws, so no value is ever hashed without it.
 *
 * `KEY_HASH_PEPPER` (the plain variable) is for the local runtime only; both
 * set at once is a configuration error.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { optionalSetting } from '../platform/environment';

let loaded: string | undefined;

/** The secret's value: its `SecretString`, exactly (no trimming); an empty or binary secret is refused. */
export async function readPepperSecret(client: Pick<SecretsManagerClient, 'send'>, secretArn: string): Promise<string> {
  const answer = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const value = answer.SecretString;
  if (value === undefined || value === '') {
    throw new Error(`The pepper secret ${secretArn} has no SecretString (an empty or binary secret cannot be the pepper)`);
  }
  return value;
}

type SecretsClient = () => Pick<SecretsManagerClient, 'send'>;

function readConfiguredSecret(arn: string, client: SecretsClient | undefined): Promise<string> {
  return readPepperSecret(client ? client() : new SecretsManagerClient({}), arn);
}

async function refuseWithoutPepper(): Promise<string> {
  throw new Error(
    'KEY_HASH_PEPPER_SECRET_ARN is set, but this function was bundled for a stack without a pepper: deploy with context keyHashPepperSecretArn instead of setting the variable by hand',
  );
}

// The stack replaces PEPPER_BUNDLE at bundling time: "off" (no context
// keyHashPepperSecretArn, the default) drops readConfiguredSecret and with it
// the Secrets Manager client (about 14 KB) from every bundle. Unbundled (tests,
// the local runtime) it is undefined: the client is there.
const readSecret = process.env.PEPPER_BUNDLE === 'off' ? refuseWithoutPepper : readConfiguredSecret;

/**
 * Loads the pepper secret when `KEY_HASH_PEPPER_SECRET_ARN` is set (once per
 * process); nothing to do otherwise.
 */
export async function loadPepperSecret(env?: NodeJS.ProcessEnv, client?: SecretsClient): Promise<void> {
  const arn = optionalSetting('KEY_HASH_PEPPER_SECRET_ARN', env);
  if (!arn || loaded !== undefined) return;
  if (optionalSetting('KEY_HASH_PEPPER', env)) throw new Error('Set KEY_HASH_PEPPER or KEY_HASH_PEPPER_SECRET_ARN, not both');
  loaded = await readSecret(arn, client);
}

/** The loaded pepper secret; throws when the secret is configured but not loaded yet. */
export function pepperFromSecret(env?: NodeJS.ProcessEnv): string | undefined {
  if (!optionalSetting('KEY_HASH_PEPPER_SECRET_ARN', env)) return undefined;
  if (loaded === undefined) throw new Error('The pepper secret is not loaded yet (services.ready() was not awaited)');
  return loaded;
}

/** Forgets the loaded secret (tests). */
export function forgetPepperSecret(): void {
  loaded = undefined;
}
