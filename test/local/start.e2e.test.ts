/**
 * `npm start` as a user runs it: a real process on a DATA_DIR. Keys made
 * before a stop still authenticate after a restart; Ctrl-C (SIGINT) and
 * SIGTERM both leave no child process (DynamoDB Local's Java, s3rver) behind;
 * the audit archive holds one line per audit event where the README says.
 * The bootstrap CLI, run while npm start runs, writes through npm start's
 * own engine (it starts none), and the key it prints works at once.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runtimeFilePath } from '../../local/data-dir-claim';
import { requestTo } from '../support/http';
import { bootstrap, childrenOn, npmStart, tempDataDir } from '../support/local-runtime';

/** Every archived audit line under `<DATA_DIR>/s3/…/audit/`, parsed. */
/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : [];
  });
}

/** A file's bytes as text (latin1 keeps every byte), gunzipped when it is gzip. */
function readableText(file: string): string {
  const bytes = readFileSync(file);
  const gzipped = bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  return (gzipped ? gunzipSync(bytes) : bytes).toString('latin1');
}

function archivedLines(dataDir: string): Array<{ event_type: string; key_id: string }> {
  const root = path.join(dataDir, 's3', 'api-key-audit-archive', 'audit');
  const lines: Array<{ event_type: string; key_id: string }> = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.jsonl.gz._S3rver_object')) {
        for (const line of gunzipSync(readFileSync(full)).toString('utf8').split('\n').filter(Boolean)) {
          lines.push(JSON.parse(line));
        }
      }
    }
  };
  try {
    walk(root);
  } catch {
    // nothing archived yet
  }
  return lines;
}

async function waitFor<T>(probe: () => T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    value = probe();
  }
  return value;
}

/** The processes still serving `dataDir` once they had 10 s to end. */
function processesLeftOn(dataDir: string): Promise<string[]> {
  return waitFor(
    () => childrenOn(dataDir),
    (left) => left.length === 0,
    10_000,
  );
}

describe('npm start, end to end', () => {
  const dataDirOf = tempDataDir('apikeys-start-');

  it('keeps keys across a restart, archives each audit event once, and leaves no process after SIGINT or SIGTERM', async () => {
    const dataDir = dataDirOf();
    // Prepare: a running service and a bootstrapped team
    const teamId = randomUUID();
    const first = await npmStart(dataDir);
    const boot = bootstrap(dataDir, teamId);
    const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

    // Act 1: a pk key with a wildcard domain, an sk manager with an IP allow-list
    const publicKey = await requestTo(first.baseUrl, 'POST', '/functions/v1/generate-api-key', {
      headers: auth(boot.key),
      body: { name: 'Web', type: 'pk', environment: 'live', team_id: teamId, domains: ['https://*.example.com'] },
    });
    const manager = await requestTo(first.baseUrl, 'POST', '/functions/v1/generate-api-key', {
      headers: auth(boot.key),
      body: {
        name: 'Backend',
        type: 'sk',
        environment: 'live',
        team_id: teamId,
        ip_whitelist: ['127.0.0.1', '::1'],
        scopes: ['keys.manage', 'enc.tiles:read'],
      },
    });
    const managerValue = (manager.body as { data: { key: string } }).data.key;
    const whileRunning = childrenOn(dataDir);
    const stoppedBySigint = await first.stop('SIGINT');

    // Assess 1: the bootstrap key, written through npm start's engine, works at once
    expect(boot.stderr).toContain('Using the DynamoDB Local of npm start');
    expect(boot.stderr).not.toContain('starting DynamoDB Local');
    expect([publicKey.status, manager.status]).toEqual([201, 201]);
    // The probe sees DynamoDB Local's Java and s3rver while the service runs…
    expect(whileRunning.some((line) => line.includes('DynamoDBLocal.jar'))).toBe(true);
    expect(whileRunning.some((line) => line.includes('s3rver'))).toBe(true);
    // …and none of them once it stopped.
    expect(stoppedBySigint).toBe(0);
    expect(await processesLeftOn(dataDir)).toEqual([]);

    // Act 2: restart; the keys made before still authenticate
    const second = await npmStart(dataDir);
    const byBootstrapKey = await requestTo(second.baseUrl, 'POST', '/functions/v1/generate-api-key', {
      headers: auth(boot.key),
      body: { name: 'After restart', type: 'sk', environment: 'live', team_id: teamId },
    });
    const byManager = await requestTo(second.baseUrl, 'POST', '/functions/v1/generate-api-key', {
      headers: auth(managerValue),
      body: { name: 'By the new manager', type: 'sk', environment: 'live', team_id: teamId },
    });
    const managerId = (manager.body as { data: { id: string } }).data.id;
    const regenerated = await requestTo(second.baseUrl, 'POST', '/functions/v1/regenerate-api-key', {
      headers: auth(boot.key),
      body: { key_id: managerId, grace_period_days: 1 },
    });
    const updated = await requestTo(second.baseUrl, 'PATCH', '/functions/v1/update-api-key', {
      headers: auth(boot.key),
      body: { key_id: managerId, description: 'edited after a restart' },
    });
    const listed = await requestTo(second.baseUrl, 'GET', `/functions/v1/list-api-keys?team_id=${teamId}&state=in_transition`, {
      headers: auth(boot.key),
    });
    const deleted = await requestTo(second.baseUrl, 'DELETE', '/functions/v1/delete-api-key', {
      headers: auth(boot.key),
      body: { key_id: managerId, confirm_deletion: true, reason: 'end-to-end' },
    });
    const teamLines = await waitFor(
      () => archivedLines(dataDir).filter((line) => line.key_id === managerId),
      (lines) => lines.length >= 4,
    );
    const stoppedBySigterm = await second.stop('SIGTERM');

    // Assess 2
    expect([byBootstrapKey.status, byManager.status, regenerated.status, updated.status, listed.status, deleted.status]).toEqual([
      201, 201, 200, 200, 200, 200,
    ]);
    expect((listed.body as { data: Array<{ id: string }> }).data.map((key) => key.id)).toEqual([managerId]);
    // The archive took the new event type through the stream, validated like the others.
    expect(teamLines.map((line) => line.event_type).sort()).toEqual(['key.created', 'key.deleted', 'key.regenerated', 'key.updated']);
    expect(stoppedBySigterm).toBe(0);
    expect(await processesLeftOn(dataDir)).toEqual([]);
    expect(existsSync(runtimeFilePath(dataDir))).toBe(false);

    // Assess 3: no value issued in this test is anywhere in DATA_DIR (engine files, archive, checkpoints) or in what npm start printed
    const issued = [
      boot.key,
      (publicKey.body as { data: { key: string } }).data.key,
      managerValue,
      (byBootstrapKey.body as { data: { key: string } }).data.key,
      (byManager.body as { data: { key: string } }).data.key,
      (regenerated.body as { new_key: string }).new_key,
    ];
    const haystacks = [
      ...filesUnder(dataDir).map((file) => ({ where: file, text: readableText(file) })),
      { where: 'npm start output', text: first.output() + second.output() },
    ];
    const found = haystacks.flatMap(({ where, text }) => issued.filter((value) => text.includes(value) || text.includes(value.slice(-28))).map(() => where));
    expect({ scannedFiles: haystacks.length - 1, found }).toEqual({ scannedFiles: expect.any(Number), found: [] });
    expect(haystacks.length).toBeGreaterThan(5);
    // The scan reads what is stored: the team id is there, in the engine's file and in the archive.
    expect(haystacks.filter(({ text }) => text.includes(teamId)).length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
