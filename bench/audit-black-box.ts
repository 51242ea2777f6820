/**
 * The provable audit trail from outside (issue 48, docs/audit.md): `npm
 * start` on a fresh DATA_DIR with `AUDIT_CHECKPOINT_SECONDS=5` and a webhook
 * receiver on loopback, driven over HTTP only:
 *
 * 1. a team's changes (keys, an identity, a webhook endpoint) are made;
 * 2. within 5 s a checkpoint is signed: get-audit-checkpoint answers it and
 *    the team's endpoint receives it as `audit.checkpoint`;
 * 3. every page of the chain (list-audit-events order=chain), the
 *    checkpoint and the public key (audit-public-key, no key) are written to
 *    files, and `npm run verify-audit` exits 0; `openssl dgst -verify`
 *    checks the signature alone;
 * 4. the same files with one record dropped make verify-audit exit 1.
 *
 * `npm run -s audit:black-box`: one line per point; exit 1 when one is not met.
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { verifyAuditCli } from '../test/support/verify-audit-cli';
import { runBlackBox, sleep, type Request } from './black-box';

/** A webhook receiver on loopback: every body it is sent. */
async function receiver() {
  const bodies: Array<{ type: string; data: Record<string, unknown> }> = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      bodies.push(JSON.parse(text) as (typeof bodies)[number]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, bodies, close: () => server.close() };
}

/** 3 and 4: every page of the chain, the checkpoint and the public key written to files and checked offline, whole and with a record dropped. */
async function checkOffline(
  request: Request,
  teamId: string,
  checkpoint: Record<string, unknown>,
  report: (met: boolean, line: string) => void,
): Promise<void> {
  const records: unknown[] = [];
  let cursor = '';
  do {
    const page = await request('GET', `list-audit-events?team_id=${teamId}&order=chain&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    records.push(...(page.body.data as unknown[]));
    cursor = page.body.meta.next_cursor ?? '';
  } while (cursor);
  const keys = await request('GET', 'audit-public-key', undefined, false);
  const files = mkdtempSync(path.join(tmpdir(), 'audit-black-box-files-'));
  writeFileSync(path.join(files, 'records.jsonl'), records.map((record) => JSON.stringify(record)).join('\n'));
  writeFileSync(
    path.join(files, 'dropped.jsonl'),
    records
      .filter((_, at) => at !== 2)
      .map((record) => JSON.stringify(record))
      .join('\n'),
  );
  writeFileSync(path.join(files, 'checkpoint.json'), JSON.stringify(checkpoint));
  writeFileSync(path.join(files, 'key.pem'), (keys.body.data as { pem: string }[]).at(-1)?.pem ?? '');
  const verify = (recordsFile: string) =>
    verifyAuditCli({ records: path.join(files, recordsFile), checkpoint: path.join(files, 'checkpoint.json'), publicKey: path.join(files, 'key.pem') });
  const whole = verify('records.jsonl');
  const statement = JSON.stringify(Object.fromEntries(['at', 'hash', 'seq', 'team_id'].map((name) => [name, checkpoint[name]])));
  writeFileSync(path.join(files, 'statement'), statement);
  writeFileSync(path.join(files, 'signature.der'), Buffer.from(String(checkpoint.signature), 'base64'));
  const openssl = spawnSync('openssl', ['dgst', '-sha256', '-verify', 'key.pem', '-signature', 'signature.der', 'statement'], {
    cwd: files,
    encoding: 'utf8',
  });
  report(
    whole.status === 0,
    `3. ${records.length} records over ${Math.ceil(records.length / 3)} pages; verify-audit exit ${whole.status}: ${whole.stdout.trim()}`,
  );
  report(openssl.status === 0, `3. openssl dgst -sha256 -verify: ${openssl.stdout.trim()}`);

  // 4. One record dropped.
  const dropped = verify('dropped.jsonl');
  report(dropped.status === 1 && dropped.stdout.includes('missing'), `4. one record dropped: verify-audit exit ${dropped.status}: ${dropped.stdout.trim()}`);
  rmSync(files, { recursive: true, force: true });
}

runBlackBox('audit-black-box-', { AUDIT_CHECKPOINT_SECONDS: '5' }, async ({ teamId, request }) => {
  const hooks = await receiver();
  const results: boolean[] = [];
  const report = (met: boolean, line: string) => {
    results.push(met);
    console.log(`${line}: ${met ? 'met' : 'NOT MET'}`);
  };
  try {
    // 1. Changes of every kind.
    const endpoint = await request('POST', 'create-webhook-endpoint', { team_id: teamId, url: hooks.url, events: ['audit.checkpoint'] });
    for (const name of ['web', 'mobile', 'batch']) await request('POST', 'generate-api-key', { name, type: 'sk', environment: 'live', team_id: teamId });
    await request('POST', 'create-identity', { team_id: teamId, external_id: 'customer-1' });
    const before = await request('GET', `get-audit-checkpoint?team_id=${teamId}`);
    report(
      endpoint.status === 201 && before.status === 404,
      `1. changes made (endpoint ${endpoint.status}); no checkpoint before the job ran (${before.status})`,
    );

    // 2. Within AUDIT_CHECKPOINT_SECONDS the job signs and sends it.
    const started = Date.now();
    let checkpoint: { status: number; body: { data?: { seq: number; hash: string } } } = before;
    while (Date.now() - started < 15_000 && checkpoint.status !== 200) {
      await sleep(500);
      checkpoint = await request('GET', `get-audit-checkpoint?team_id=${teamId}`);
    }
    while (Date.now() - started < 20_000 && !hooks.bodies.some((body) => body.type === 'audit.checkpoint')) await sleep(200);
    const sent = hooks.bodies.find((body) => body.type === 'audit.checkpoint');
    report(
      checkpoint.status === 200 && sent?.data.seq === checkpoint.body.data?.seq,
      `2. checkpoint seq ${checkpoint.body.data?.seq} signed ${((Date.now() - started) / 1000).toFixed(1)} s after the changes; sent to the endpoint as audit.checkpoint (seq ${String(sent?.data.seq)})`,
    );

    await checkOffline(request, teamId, checkpoint.body.data as unknown as Record<string, unknown>, report);
    return results.every(Boolean) ? 0 : 1;
  } finally {
    hooks.close();
  }
});
