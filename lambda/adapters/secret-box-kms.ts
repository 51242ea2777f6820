/**
 * Webhook signing secrets sealed by the stack's KMS key
 * (`WEBHOOK_SECRET_KEY_ARN`), the endpoint id as encryption context: a
 * sealed secret opens only for its own endpoint, and every opening is in
 * CloudTrail. Loaded only by the functions that sign or issue secrets.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { SecretBox } from '../platform/secret-box';
import { requiredSetting } from '../platform/environment';

const KMS_PREFIX = 'kms:';

export function kmsSecretBox(client = new KMSClient({}), keyId = requiredSetting('WEBHOOK_SECRET_KEY_ARN')): SecretBox {
  const context = (endpointId: string) => ({ endpoint_id: endpointId });
  return {
    seal: async (secret, endpointId) => {
      const { CiphertextBlob } = await client.send(
        new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: context(endpointId) }),
      );
      if (!CiphertextBlob) throw new Error('KMS returned no ciphertext');
      return KMS_PREFIX + Buffer.from(CiphertextBlob).toString('base64');
    },
    open: async (sealed, endpointId) => {
      if (!sealed.startsWith(KMS_PREFIX)) throw new Error('not a KMS-sealed secret');
      const { Plaintext } = await client.send(
        new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(sealed.slice(KMS_PREFIX.length), 'base64'), EncryptionContext: context(endpointId) }),
      );
      if (!Plaintext) throw new Error('KMS returned no plaintext');
      return Buffer.from(Plaintext).toString('utf8');
    },
  };
}
