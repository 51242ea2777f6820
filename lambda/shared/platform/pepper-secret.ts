/**
 * The Secrets Manager side of the pepper (see pepper.ts), in a module of its
 * own so that it is loaded on first use, only where a pepper secret is
 * configured.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** The function's Secrets Manager client (region and credentials from Lambda's environment). */
export const secretsManagerClient = (): SecretsManagerClient => new SecretsManagerClient({});

/** The secret's value: its `SecretString`, exactly (no trimming); an empty or binary secret is refused. */
export async function readPepperSecret(client: Pick<SecretsManagerClient, 'send'>, secretArn: string): Promise<string> {
  const answer = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const value = answer.SecretString;
  if (value === undefined || value === '') {
    throw new Error(`The pepper secret ${secretArn} has no SecretString (an empty or binary secret cannot be the pepper)`);
  }
  return value;
}
