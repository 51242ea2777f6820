/**
 * Crashes: `npm start` under concurrent load is killed with SIGKILL (the
 * Node process, DynamoDB Local's Java and the S3 API, nothing gets to clean
 * up), then started again on the same DATA_DIR, twice. After each restart:
 * no key is half-written (a key without its lookup, or a lookup of a
 * missing or deleted key), every create acknowledged before the engine's
 * flush window is there and works, and the audit archive holds every audit
 * event exactly once. The window and the engine's durability are in
 * docs/security.md ("Crashes").
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { AUDIT_TABLE, KEY_TABLE } from '../../lambda/contract/tables';
import { localDynamoClient, readRuntimeRecord } from '../../local/dynamodb-local';
import { requestTo } from '../support/http';
import { recordIssuedValue } from '../support/issued-values';
import { bootstrap, childrenOn, npmStart, tempDataDir, type Running } from '../support/local-runtime';

/** A create acknowledged this long before the kill must survive it (DynamoDB Local's flush window, docs/security.md). */
const FLUSH_WINDOW_MS = 1000;
const CYCLES = Number(process.env.CRASH_CYCLES ?? 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function scanAll(db: DynamoDBDocumentClient, table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

function archivedEventIds(dataDir: string): string[] {
  const ids: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.jsonl.gz._S3rver_object')) {
        for (const line of gunzipSync(readFileSync(full)).toString('utf8').split('\n').filter(Boolean))
          ids.push((JSON.parse(line) as { event_id: string }).event_id);
      }
    }
  };
  try {
    walk(path.join(dataDir, 's3', 'api-key-audit-archive', 'audit'));
  } catch {
    // nothing archived yet
  }
  return ids;
}

/** SIGKILL for the runtime and every process serving its DATA_DIR (DynamoDB Local, the S3 API). */
function killHard(running: Running, dataDir: string): void {
  // The runtime itself (tsx runs it in a child process of its own), then tsx, then the engines.
  const holder = readRuntimeRecord(dataDir)?.pid;
  if (holder) process.kill(holder, 'SIGKILL');
  running.kill('SIGKILL');
  for (const line of childrenOn(dataDir)) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

interface Acknowledged {
  id: string;
  value: string;
  at: number;
}

/** Workers creating, regenerating and deleting keys until `stop()`; what the API acknowledged. */
function load(baseUrl: string, teamId: string, managerKey: string, workers = 8) {
  const created: Acknowledged[] = [];
  let running = true;
  const auth = { Authorization: `Bearer ${managerKey}` };
  const worker = async (n: number) => {
    for (let i = 0; running; i++) {
      try {
        const response = await requestTo(baseUrl, 'POST', '/functions/v1/generate-api-key', {
          headers: auth,
          body: { name: `crash ${n}.${i}`, type: 'sk', environment: 'live', team_id: teamId },
        });
        if (response.status !== 201) continue;
        const data = (response.body as { data: { id: string; key: string } }).data;
        recordIssuedValue(data.key);
        const entry: Acknowledged = { id: data.id, value: data.key, at: Date.now() };
        created.push(entry);
        if (i % 3 === 1) {
          // The old value dies at once: from the acknowledgement on, only the new one must work.
          entry.at = Number.POSITIVE_INFINITY;
          const rolled = await requestTo(baseUrl, 'POST', '/functions/v1/regenerate-api-key', {
            headers: auth,
            body: { key_id: data.id, revoke_immediately: true },
          });
          if (rolled.status === 200) {
            entry.value = (rolled.body as { new_key: string }).new_key;
            recordIssuedValue(entry.value);
            entry.at = Date.now();
          }
        }
        if (i % 5 === 2) {
          entry.at = Number.POSITIVE_INFINITY;
          const gone = await requestTo(baseUrl, 'DELETE', '/functions/v1/delete-api-key', { headers: auth, body: { key_id: data.id, confirm_deletion: true } });
          if (gone.status === 200) created.splice(created.indexOf(entry), 1);
        }
      } catch {
        // The kill: connections fail from here on.
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, n) => worker(n)));
  return {
    created,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe(`npm start killed with SIGKILL under load, ${CYCLES} times`, () => {
  const dataDirOf = tempDataDir('apikeys-crash-');

  it(
    'restarts on the same data with no half-written key, every acknowledged create present, and a complete archive without duplicates',
    async () => {
      const dataDir = dataDirOf();
      const teamId = randomUUID();
      let running = await npmStart(dataDir);
      const boot = bootstrap(dataDir, teamId);
      const survivors: Acknowledged[] = [];
      const report: Array<Record<string, number>> = [];

      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        // Act: load, then SIGKILL everything mid-flight, then start again
        const traffic = load(running.baseUrl, teamId, boot.key);
        await sleep(2500);
        const killedAt = Date.now();
        killHard(running, dataDir);
        await traffic.stop();
        running = await npmStart(dataDir);

        // Assess: read the store through the restarted engine
        const endpoint = readRuntimeRecord(dataDir)?.dynamodbEndpoint;
        expect(endpoint).toBeDefined();
        const db = DynamoDBDocumentClient.from(localDynamoClient(endpoint as string));
        const keyItems = await scanAll(db, KEY_TABLE.logicalName);
        const keys = new Map(keyItems.filter((item) => item.entity === 'key').map((item) => [String(item.id), item]));
        const lookups = keyItems.filter((item) => String(item.pk).startsWith('HASH#'));
        // No half-written key: every active key has its current lookup; every lookup points at an active key.
        const activeWithoutLookup = [...keys.values()].filter(
          (key) => key.state === 'active' && !lookups.some((lookup) => lookup.key_id === key.id && lookup.slot === 'current'),
        );
        const orphanLookups = lookups.filter((lookup) => keys.get(String(lookup.key_id))?.state !== 'active');
        expect({ cycle, activeWithoutLookup, orphanLookups }).toEqual({ cycle, activeWithoutLookup: [], orphanLookups: [] });

        // Every create acknowledged before the flush window still works.
        const mustSurvive = [...survivors, ...traffic.created.filter((created) => created.at < killedAt - FLUSH_WINDOW_MS)];
        const lost = [];
        for (const created of mustSurvive) {
          const verified = await requestTo(running.baseUrl, 'POST', '/functions/v1/verify-api-key', { body: { key: created.value } });
          if ((verified.body as { valid?: boolean }).valid !== true) lost.push(created.id);
        }
        expect({ cycle, lost }).toEqual({ cycle, lost: [] });
        survivors.push(...traffic.created.filter((created) => created.at < killedAt - FLUSH_WINDOW_MS));

        // The archive catches up with the audit table: every event once, no duplicate.
        const auditItems = await scanAll(db, AUDIT_TABLE.logicalName);
        const auditIds = auditItems.map((item) => String(item.event_id)).filter((id) => id !== 'undefined');
        const deadline = Date.now() + 30_000;
        let archived = archivedEventIds(dataDir);
        while (auditIds.some((id) => !archived.includes(id)) && Date.now() < deadline) {
          await sleep(500);
          archived = archivedEventIds(dataDir);
        }
        const duplicates = archived.filter((id, index) => archived.indexOf(id) !== index);
        const missingItems = auditItems.filter((item) => !archived.includes(String(item.event_id)));
        if (missingItems.length > 0) {
          process.stdout.write(
            `crash debug: cycle ${cycle} killedAt ${new Date(killedAt).toISOString()} audit ${auditIds.length} archived ${archived.length} missing ${missingItems.length}: ${JSON.stringify(missingItems.slice(0, 3).map((item) => item.occurred_at))} .. ${JSON.stringify(missingItems.slice(-3).map((item) => item.occurred_at))}\n`,
          );
        }
        expect({ cycle, missing: auditIds.filter((id) => !archived.includes(id)), duplicates }).toEqual({ cycle, missing: [], duplicates: [] });
        report.push({ cycle, acknowledged_creates: traffic.created.length, checked_survivors: mustSurvive.length, audit_events: auditIds.length });
        db.destroy();
      }
      await running.stop('SIGTERM');
      process.stdout.write(`crash test: ${JSON.stringify(report)}\n`);
      expect(report.every((entry) => entry.acknowledged_creates > 0)).toBe(true);
    },
    Math.max(240_000, CYCLES * 60_000),
  );
});
