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
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let loaded: string | undefined;

/**
 * Loads the pepper secret when `KEY_HASH_PEPPER_SECRET_ARN` is set (once per
 * process); nothing to do otherwise. The Secrets Manager client is loaded
 * only then (pepper-secret.ts): a function deployed without a pepper secret
 * never evaluates it at its cold start.
 */
export async function loadPepperSecret(env: NodeJS.ProcessEnv = process.env, client?: () => Pick<SecretsManagerClient, 'send'>): Promise<void> {
  const arn = env.KEY_HASH_PEPPER_SECRET_ARN;
  if (!arn || loaded !== undefined) return;
  if (env.KEY_HASH_PEPPER) throw new Error('Set KEY_HASH_PEPPER or KEY_HASH_PEPPER_SECRET_ARN, not both');
  const secrets = await import('./pepper-secret');
  loaded = await secrets.readPepperSecret((client ?? secrets.secretsManagerClient)(), arn);
}

/** The loaded pepper secret; throws when the secret is configured but not loaded yet. */
export function pepperFromSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!env.KEY_HASH_PEPPER_SECRET_ARN) return undefined;
  if (loaded === undefined) throw new Error('The pepper secret is not loaded yet (services.ready() was not awaited)');
  return loaded;
}

/** Forgets the loaded secret (tests). */
export function forgetPepperSecret(): void {
  loaded = undefined;
}
