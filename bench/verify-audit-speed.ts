/**
 * `npm run -s bench:verify-audit`: the offline verifier's budget (issue 48
 * point 5): 100,000 chained records of one team, written as JSON lines
 * with a signed checkpoint, checked by `npm run verify-audit` itself (a
 * child process, start-up included) in at most 10 s. Exit 1 when over.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EMPTY_CHAIN, linkRecord, type ChainHead } from '../lambda/domain/audit-chain';
import { checkpointMessage } from '../lambda/domain/audit-checkpoints';

const RECORDS = Number(process.env.VERIFY_AUDIT_RECORDS ?? 100_000);
const BUDGET_SECONDS = 10;
const TEAM = '3f0c8a52-6d1e-4b7a-9c2f-5e8d7a6b4c31';

const folder = mkdtempSync(path.join(tmpdir(), 'verify-audit-bench-'));
try {
  const lines: string[] = [];
  let head: ChainHead = EMPTY_CHAIN;
  for (let at = 0; at < RECORDS; at++) {
    const record = linkRecord(
      {
        event_id: `01JZ${String(at).padStart(22, '0')}`,
        event_type: 'key.updated',
        occurred_at: new Date(Date.UTC(2026, 0, 1) + at * 1000).toISOString(),
        key_id: '01JZ0000000000000000000KEY',
        team_id: TEAM,
        actor: { user_id: 'u1', key_id: '01JZ00000000000000000ACTOR', source_ip: '203.0.113.7', user_agent: 'curl/8.5.0', request_id: `req-${at}` },
        changes: { name: { before: `name ${at}`, after: `name ${at + 1}` }, is_active: { before: true, after: at % 2 === 0 } },
      },
      head,
    );
    head = { seq: record.seq, hash: record.hash };
    lines.push(JSON.stringify(record));
  }
  // Newest first, as the audit route lists them: the verifier orders them itself.
  writeFileSync(path.join(folder, 'records.jsonl'), `${lines.reverse().join('\n')}\n`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const statement = { team_id: TEAM, seq: head.seq, hash: head.hash, at: new Date().toISOString() };
  const signature = sign('sha256', checkpointMessage(statement), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
  writeFileSync(path.join(folder, 'checkpoint.json'), JSON.stringify({ ...statement, signature, key_id: 'bench' }));
  writeFileSync(path.join(folder, 'key.pem'), publicKey.export({ format: 'pem', type: 'spki' }));

  const started = process.hrtime.bigint();
  const run = spawnSync(
    process.execPath,
    [
      require.resolve('tsx/cli'),
      '--conditions=import',
      path.resolve(__dirname, '../scripts/verify-audit.ts'),
      '--records',
      path.join(folder, 'records.jsonl'),
      '--checkpoint',
      path.join(folder, 'checkpoint.json'),
      '--public-key',
      path.join(folder, 'key.pem'),
    ],
    { encoding: 'utf8' },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(run.stdout.trim());
  console.log(`verify-audit: ${RECORDS.toLocaleString('en-US')} records checked in ${seconds.toFixed(2)} s (budget ${BUDGET_SECONDS} s), exit ${run.status}`);
  process.exitCode = run.status === 0 && seconds <= BUDGET_SECONDS ? 0 : 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
