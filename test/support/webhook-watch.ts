/**
 * Webhooks across a kill of `npm start` (used by test/local/crash.e2e.test.ts):
 * before the kill, a receiver on loopback, an endpoint of the team that
 * takes key.expired, a key expiring 5 s ahead, and a webhook.test whose
 * first attempt the receiver answers 500, so its retry waits in the queue
 * when the runtime dies. After the restart, `after` waits for the retry
 * (the same webhook-id) and for key.expired (from the expiry notice kept
 * across the kill: the key expired while the runtime was down, so the
 * restarted one owes it at once; within 15 s of the restart answering,
 * however long the restart itself took on a loaded machine), verifies
 * every delivery with `standardwebhooks`, and reads the deliveries back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { requestTo } from './http';
import { recordIssuedValue } from './issued-values';

interface Received {
  at: number;
  headers: Record<string, string>;
  body: string;
}

/** How soon after the restarted runtime answers its owed key.expired must arrive. */
export const EXPIRED_WITHIN_MS_OF_RESTART = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `find`'s first answer, polled; `what` (said when the time is up) may be worked out then. */
async function waitFor<T>(what: string | (() => string), find: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(100);
  }
}

export interface WebhookWatch {
  /** The signing secret (to look for in the runtime's output). */
  readonly secret: string;
  /** After the restart: the deliveries, checked; resolves with what to report. */
  after(baseUrl: string): Promise<{ retriedAfterMs: number; expiredAfterMs: number; expiredAfterRestartMs: number; deliveries: string[] }>;
  close(): Promise<void>;
}

export async function watchWebhooks(baseUrl: string, teamId: string, managerKey: string): Promise<WebhookWatch> {
  const received: Received[] = [];
  const statuses = [500];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ at: Date.now(), headers: request.headers as Record<string, string>, body });
      response.statusCode = statuses.shift() ?? 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const call = (base: string, method: string, route: string, body?: unknown) =>
    requestTo(base, method, `/functions/v1/${route}`, { headers: { Authorization: `Bearer ${managerKey}` }, body });

  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const endpoint = (await call(baseUrl, 'POST', 'create-webhook-endpoint', { team_id: teamId, url, events: ['key.expired'] })).body as {
    data: { id: string; secret: string };
  };
  const createdAt = Date.now();
  const expiring = await call(baseUrl, 'POST', 'generate-api-key', {
    name: 'Expires in 5 s',
    type: 'sk',
    environment: 'live',
    team_id: teamId,
    expires_at: new Date(createdAt + 5000).toISOString(),
  });
  const key = expiring.body as { data: { id: string; key: string } };
  recordIssuedValue(key.data.key);
  const test = (await call(baseUrl, 'POST', 'send-test-webhook', { endpoint_id: endpoint.data.id })).body as { data: { event_id: string } };
  const first = await waitFor('the first webhook.test attempt', () => received.find((entry) => entry.headers['webhook-id'] === test.data.event_id), 10_000);

  return {
    secret: endpoint.data.secret,
    async after(restartedUrl) {
      const restartedAt = Date.now();
      const retried = await waitFor(
        'the retried webhook.test',
        () => received.filter((entry) => entry.headers['webhook-id'] === test.data.event_id)[1],
        20_000,
      );
      const expired = await waitFor(
        () =>
          `key.expired (the restart answered ${restartedAt - createdAt} ms after the create; received by then: ${received.map((entry) => entry.headers['webhook-id']).join(', ')})`,
        () => received.find((entry) => entry.body.includes('"key.expired"')),
        EXPIRED_WITHIN_MS_OF_RESTART - (Date.now() - restartedAt),
      );
      const webhook = new Webhook(endpoint.data.secret);
      for (const entry of [first, retried, expired]) {
        webhook.verify(entry.body, entry.headers);
        if (entry.body.includes(key.data.key)) throw new Error('a delivery holds a key value');
      }
      if ((JSON.parse(expired.body) as { data: { key_id: string } }).data.key_id !== key.data.id) throw new Error('key.expired names another key');
      const listed = await call(restartedUrl, 'GET', `list-webhook-deliveries?endpoint_id=${endpoint.data.id}`);
      const deliveries = (listed.body as { data: { event_type: string; attempt: number; status_code: number }[] }).data.map(
        (entry) => `${entry.event_type} ${entry.attempt} ${entry.status_code}`,
      );
      return { retriedAfterMs: retried.at - first.at, expiredAfterMs: expired.at - createdAt, expiredAfterRestartMs: expired.at - restartedAt, deliveries };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
