/**
 * The pepper in AWS: read from Secrets Manager once per cold start (there is
 * no local Secrets Manager engine, so the client is mocked and the exact
 * request asserted), and no value hashed before it is loaded.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { forgetPepperSecret, loadPepperSecret, pepperFromSecret } from '../../lambda/adapters/pepper';
import { config } from '../../lambda/composition/config';
import { hashKeyValue } from '../../lambda/domain/key-values';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper-AbCdEf';
const secrets = mockClient(SecretsManagerClient);

afterEach(() => {
  secrets.reset();
  forgetPepperSecret();
  delete process.env.KEY_HASH_PEPPER_SECRET_ARN;
});

describe('pepper secret', () => {
  it('is read once with GetSecretValue on the configured ARN, then hashes as HMAC-SHA256 under it', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'a pepper of 32+ characters, exactly' });
    const env = { KEY_HASH_PEPPER_SECRET_ARN: ARN };
    process.env.KEY_HASH_PEPPER_SECRET_ARN = ARN;
    // Act
    await loadPepperSecret(env, () => new SecretsManagerClient({ region: 'eu-west-1' }));
    await loadPepperSecret(env, () => new SecretsManagerClient({ region: 'eu-west-1' }));
    // Assess
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([{ SecretId: ARN }]);
    expect(config.pepper).toBe('a pepper of 32+ characters, exactly');
    expect(hashKeyValue('v', config.pepper)).not.toBe(hashKeyValue('v'));
  });

  it('before it is loaded, reading the pepper throws instead of hashing without it', () => {
    // Prepare
    process.env.KEY_HASH_PEPPER_SECRET_ARN = ARN;
    // Act + Assess
    expect(() => config.pepper).toThrow('not loaded');
    expect(() => pepperFromSecret()).toThrow('not loaded');
  });

  it('an empty or binary secret is refused, and a failed read is not cached', async () => {
    // Prepare
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretBinary: new Uint8Array([1]) })
      .resolvesOnce({ SecretString: 'second try' });
    const env = { KEY_HASH_PEPPER_SECRET_ARN: ARN };
    // Act + Assess
    await expect(loadPepperSecret(env, () => new SecretsManagerClient({ region: 'eu-west-1' }))).rejects.toThrow('no SecretString');
    await loadPepperSecret(env, () => new SecretsManagerClient({ region: 'eu-west-1' }));
    expect(pepperFromSecret(env)).toBe('second try');
  });

  it('KEY_HASH_PEPPER and KEY_HASH_PEPPER_SECRET_ARN together are a configuration error', async () => {
    await expect(loadPepperSecret({ KEY_HASH_PEPPER: 'local', KEY_HASH_PEPPER_SECRET_ARN: ARN })).rejects.toThrow('not both');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });
});
