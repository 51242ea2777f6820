/** `npm run verify-audit` as a person runs it: the script in a child process (tsx), its exit code and its lines. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { tsxArgs } from './tsx';

const ROOT = path.resolve(__dirname, '../..');

export function verifyAuditCli(files: { records: string; checkpoint: string; publicKey: string }): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(
    process.execPath,
    tsxArgs('scripts/verify-audit.ts', '--records', files.records, '--checkpoint', files.checkpoint, '--public-key', files.publicKey),
    { cwd: ROOT, encoding: 'utf8' },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
