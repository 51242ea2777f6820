/**
 * Webhook signing secrets at rest: sealed before they are stored, opened
 * only to sign. Each sealed secret is bound to its endpoint (GCM additional
 * data here, the KMS encryption context in AWS), so a sealed secret copied
 * onto another endpoint's item does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(secret: string, endpointId: string): Promise<string>;
  open(sealed: string, endpointId: string): Promise<string>;
}

const LOCAL_PREFIX = 'aesgcm:';

/** AES-256-GCM under a 32-byte key (the local runtime keeps it under DATA_DIR; the tests make one per run). */
export function localSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
  return {
    seal: async (secret, endpointId) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(endpointId, 'utf8'));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return LOCAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
    },
    open: async (sealed, endpointId) => {
      if (!sealed.startsWith(LOCAL_PREFIX)) throw new Error('not a locally sealed secret');
      const bytes = Buffer.from(sealed.slice(LOCAL_PREFIX.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(endpointId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
