/**
 * Keys the local runtime keeps in its data directory, made on first start
 * (what KMS and Secrets Manager hold in AWS): the webhook sealing key
 * (local/webhooks.ts) and the cursor signing key.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A 32-byte key kept in a file of the data directory (mode 0600): read, or made on first use. */
export function dataDirKey(dataDir: string, fileName: string): Buffer {
  const file = path.join(dataDir, fileName);
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dataDir, { recursive: true });
    const key = randomBytes(32);
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return key;
  }
}

/** The key page cursors are signed with (what the stack generates in AWS): one per data directory, so cursors survive a restart. */
export const localCursorKey = (dataDir: string): string => dataDirKey(dataDir, 'cursor-signing.key').toString('base64url');
