/**
 * Audit checkpoints signed by a P-256 key kept in a file (the local
 * runtime's data directory, `audit-signing-key.pem`, PKCS#8, mode 0600):
 * made on first use, then the same key for as long as the folder lives, so
 * every checkpoint the runtime ever signed stays checkable.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { publicKeyRecordOf, type CheckpointSigner } from '../domain/audit-checkpoints';

/** The key in `file`, made there first when the file does not exist (never replaced). */
function keyIn(file: string) {
  try {
    return createPrivateKey(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // Another process may have made it first: the file's key is the key.
  return createPrivateKey(readFileSync(file, 'utf8'));
}

export function fileCheckpointSigner(file: string): CheckpointSigner {
  let key: ReturnType<typeof createPrivateKey> | undefined;
  const privateKey = () => (key ??= keyIn(file));
  return {
    publicKey: () => Promise.resolve(publicKeyRecordOf(createPublicKey(privateKey()).export({ format: 'pem', type: 'spki' }).toString())),
    sign: (message) => Promise.resolve(sign('sha256', message, { key: privateKey(), dsaEncoding: 'der' })),
  };
}
