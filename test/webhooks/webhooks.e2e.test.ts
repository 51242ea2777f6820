/**
 * Webhooks on `npm start`, as a team sees them: a receiver on loopback, a
 * key created with `expires_at` 5 s ahead, its key.created delivery failing
 * once (500), and the whole runtime killed with SIGKILL while that retry is
 * pending. After a restart on the same DATA_DIR the event arrives again with
 * the same webhook-id (the kept retry, or the audit stream replaying a record
 * whose checkpoint the kill lost), and key.expired arrives from the expiry
 * notice kept across
 * the kill, within 25 s of the create; every delivery verifies with
 * `standardwebhooks`; the runtime's output never holds the signing secret or
 * a key value.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { requestTo } from '../support/http';
import { bootstrap, killHard, npmStart, tempDataDir } from '../support/local-runtime';

interface Received {
  at: number;
  headers: Record<string, string>;
  body: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, find: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('webhooks on npm start', () => {
  const dataDirOf = tempDataDir('apikeys-webhooks-');
  let server: Server;
  const received: Received[] = [];
  const statuses: number[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ at: Date.now(), headers: request.headers as Record<string, string>, body });
        response.statusCode = statuses.shift() ?? 204;
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a failed delivery is retried after a kill -9 with the same webhook-id, and key.expired arrives within 25 s, verifiable', async () => {
    // Prepare: npm start, a team, an endpoint on the loopback receiver
    const dataDir = dataDirOf();
    const teamId = randomUUID();
    let running = await npmStart(dataDir);
    const manager = bootstrap(dataDir, teamId);
    const call = (method: string, route: string, body: unknown) =>
      requestTo(running.baseUrl, method, `/functions/v1/${route}`, { headers: { Authorization: `Bearer ${manager.key}` }, body });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const endpoint = (await call('POST', 'create-webhook-endpoint', { team_id: teamId, url })).body as { data: { id: string; secret: string } };
    const secret = endpoint.data.secret;
    statuses.push(500);
    let output = '';

    try {
      // Act 1: a key expiring 5 s ahead (as the issue says); its key.created delivery fails once
      const createdAt = Date.now();
      const expiresAt = new Date(createdAt + 5000).toISOString();
      const created = await call('POST', 'generate-api-key', { name: 'short-lived', type: 'sk', environment: 'live', team_id: teamId, expires_at: expiresAt });
      expect(created.status).toBe(201);
      const key = created.body as { data: { id: string; key: string } };
      const firstAttempt = await waitFor('the first key.created attempt', () => received.find((entry) => entry.body.includes('"key.created"')), 10_000);

      // Act 2: SIGKILL for everything while the retry waits (5 s), then a restart on the same DATA_DIR
      output += running.output();
      await killHard(running, dataDir, false);
      running = await npmStart(dataDir);

      // Assess: the retry, with the same webhook-id; key.expired from the notice kept across the kill
      const retried = await waitFor(
        'the retried key.created',
        () => received.filter((entry) => entry.headers['webhook-id'] === firstAttempt.headers['webhook-id'])[1],
        20_000,
      );
      const expired = await waitFor('key.expired', () => received.find((entry) => entry.body.includes('"key.expired"')), 25_000 - (Date.now() - createdAt));
      expect(expired.at - createdAt).toBeLessThanOrEqual(25_000);
      process.stdout.write(
        `webhooks e2e: key.created again after the kill ${retried.at - firstAttempt.at} ms after its first attempt; key.expired ${expired.at - createdAt} ms after the create\n`,
      );
      const webhook = new Webhook(secret);
      for (const entry of [firstAttempt, retried, expired]) {
        const payload = webhook.verify(entry.body, entry.headers) as { data: { key_id: string } };
        expect(payload.data.key_id).toBe(key.data.id);
        expect(Math.abs(Number(entry.headers['webhook-timestamp']) * 1000 - entry.at)).toBeLessThan(5 * 60 * 1000);
        expect(entry.body).not.toContain(key.data.key);
      }
      // The retry, or the stream replaying the record whose checkpoint the kill lost (at least once): the same webhook-id either way.
      const deliveries = await call('GET', `list-webhook-deliveries?endpoint_id=${endpoint.data.id}`, undefined);
      const rows = (deliveries.body as { data: { event_type: string; attempt: number; status_code: number }[] }).data.map(
        (entry) => `${entry.event_type} ${entry.status_code}`,
      );
      expect(rows).toEqual(expect.arrayContaining(['key.created 500', 'key.created 204', 'key.expired 204']));
    } finally {
      await running.stop('SIGTERM');
      output += running.output();
    }

    // Assess: neither the secret nor a key value in anything the runtime printed
    expect(output).not.toContain(secret.slice('whsec_'.length));
    expect(output).not.toContain(manager.key);
  }, 90_000);
});
