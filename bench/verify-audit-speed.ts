/**
 * `npm run -s bench:verify-audit`: the offline verifier's budget (issue 48
 * point 5): 100,000 chained records of one team, written as JSON lines
 * with a signed checkpoint, checked by `npm run verify-audit` itself (a
 * child process, start-up included) in at most 10 s. Exit 1 when over.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chainedTrail, signedCheckpoint } from '../test/support/audit-trails';
import { verifyAuditCli } from '../test/support/verify-audit-cli';

const RECORDS = Number(process.env.VERIFY_AUDIT_RECORDS ?? 100_000);
const BUDGET_SECONDS = 10;
const TEAM = '3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31';

const folder = mkdtempSync(path.join(tmpdir(), 'verify-audit-bench-'));
try {
  const records = chainedTrail(TEAM, RECORDS);
  // Newest first, as the audit route lists them: the verifier orders them itself.
  writeFileSync(
    path.join(folder, 'records.jsonl'),
    `${records
      .map((record) => JSON.stringify(record))
      .reverse()
      .join('\n')}\n`,
  );
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(path.join(folder, 'checkpoint.json'), JSON.stringify(signedCheckpoint(records, privateKey, new Date().toISOString())));
  writeFileSync(path.join(folder, 'key.pem'), publicKey.export({ format: 'pem', type: 'spki' }));

  const started = process.hrtime.bigint();
  const run = verifyAuditCli({
    records: path.join(folder, 'records.jsonl'),
    checkpoint: path.join(folder, 'checkpoint.json'),
    publicKey: path.join(folder, 'key.pem'),
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(run.stdout.trim());
  console.log(`verify-audit: ${RECORDS.toLocaleString('en-US')} records checked in ${seconds.toFixed(2)} s (budget ${BUDGET_SECONDS} s), exit ${run.status}`);
  process.exitCode = run.status === 0 && seconds <= BUDGET_SECONDS ? 0 : 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
