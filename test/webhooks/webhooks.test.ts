/**
 * Webhooks end to end in one process: the routes as API Gateway calls them,
 * key events made from the audit records the key routes really wrote (the
 * stream handler of lambda/handlers/publish-events.ts), the local delivery
 * queue on a manual clock, and a receiver on loopback that verifies every
 * delivery with `standardwebhooks`, the specification's reference library.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../lambda/platform/clock';
import { localSecretBox } from '../../lambda/platform/secret-box';
import { httpPoster } from '../../lambda/adapters/webhook-transport';
import { makeHandler as makePublishHandler } from '../../lambda/handlers/publish-events';
import { deliverEvent } from '../../lambda/handlers/deliver-webhooks';
import { RETRY_DELAYS_SECONDS } from '../../lambda/contract/webhooks';
import type { LocalJobQueue } from '../../local/job-queue';
import { localDeliveryQueue } from '../../local/webhooks';
import { localExpiryScheduler, type LocalExpiry } from '../../local/expiry';
import { readSettings } from '../../local/settings';
import { parseAuditEvent } from '../../lambda/domain/audit-event-schema';
import type { DeliveryJob } from '../../lambda/domain/webhook-endpoints';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { captured, stubbedNames, stubResolver, testClock, testObservability, testServices, useTestServices } from '../support/services';
import { randomBytes } from 'node:crypto';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver on loopback: records every request, answers the next status of `statuses` (then 204). */
class Receiver {
  readonly received: Received[] = [];
  statuses: number[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        this.received.push({ headers: request.headers as Record<string, string>, body });
        response.statusCode = this.statuses.shift() ?? 204;
        response.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  types(): string[] {
    return this.received.map((entry) => (JSON.parse(entry.body) as { type: string }).type);
  }
}

let clock: ManualClock;
let queue: LocalJobQueue<DeliveryJob>;
let expiry: LocalExpiry;
let receiver: Receiver;
let team: TestTeam;
const policy = { httpsOnly: false, allowLoopback: true };
/** The ports of this file: the manual-clock queue, names resolved by the stub only. */
const ports = (allowed: typeof policy) => ({
  policy: allowed,
  queue,
  secrets: localSecretBox(randomBytes(32)),
  post: httpPoster({ policy: allowed, resolver: stubResolver }),
  resolve: stubResolver,
});

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  clock = new ManualClock(Date.now());
  testClock.use(clock);
  queue = localDeliveryQueue({ clock, services: testServices });
  expiry = localExpiryScheduler({ clock, services: testServices });
  useTestServices({ webhookPorts: ports(policy), expiry });
  team = await newTeam();
});

afterAll(async () => {
  await queue.stop();
  await expiry.queue.stop();
  await receiver.stop();
  useTestServices({});
  testClock.use({ now: () => new Date() });
});

beforeEach(() => {
  clock.set(Date.now());
  receiver.received.length = 0;
  receiver.statuses = [];
});

/** Feeds the audit records written for `keyId` since `after` (oldest first) through the stream handler, as the audit stream would. */
async function publishAuditOf(keyId: string, after: string): Promise<void> {
  const page = await testServices().audit.auditPage({ attribute: 'pk', value: `KEY#${keyId}`, limit: 50 });
  const items = page.items.filter((item) => String(item.sk) > after).reverse();
  const event: DynamoDBStreamEvent = {
    Records: items.map((item, index) => ({
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: String(Date.now() * 100 + index), NewImage: marshall(item) as never },
    })),
  };
  const publish = makePublishHandler(async (events) => {
    for (const lifecycle of events) await deliverEvent(testServices(), lifecycle);
  }, testObservability);
  const answer = await publish(event);
  expect(answer.batchItemFailures).toEqual([]);
  // First attempts are queued, due at once: run them as the queue would.
  await queue.runDue();
}

async function createEndpoint(body: Record<string, unknown> = {}) {
  const created = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: receiver.url, ...body } });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; secret: string; events: string[] };
}

function verified(entry: Received, secret: string): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(entry.body, entry.headers) as never;
}

const deleteEndpoint = (id: string) => call('delete-webhook-endpoint', { key: team.key, body: { endpoint_id: id } });

describe('webhook endpoints', () => {
  it('create answers 201 with a whsec_ secret once; the list and the stored item never show it', async () => {
    // Act
    const endpoint = await createEndpoint({ description: 'ops receiver' });
    const list = await call('list-webhook-endpoints', { key: team.key, query: { team_id: team.teamId } });
    const stored = await testServices().webhooks.getEndpoint(endpoint.id);

    // Assess
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(32);
    expect(list.status).toBe(200);
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(endpoint.id);
    expect(JSON.stringify(list.body)).not.toContain(endpoint.secret.slice(6));
    expect(Object.keys(list.body.data[0]).sort()).toEqual(
      ['created_at', 'description', 'disabled_reason', 'events', 'failing_since', 'id', 'is_active', 'team_id', 'updated_at', 'url'].sort(),
    );
    expect(JSON.stringify(stored)).not.toContain(endpoint.secret.slice(6));
    expect(captured.lines.some((line) => line.json.includes(endpoint.secret.slice(6)))).toBe(false);
    await deleteEndpoint(endpoint.id);
  });

  it('bad URLs and bad fields → 400 in the house shape; nothing is stored', async () => {
    const bad = [
      'ftp://example.com/hook',
      'file:///etc/passwd',
      'not a url',
      'http://user:pass@example.com/hook',
      'http://10.0.0.8/hook',
      'http://169.254.169.254/latest',
      'http://[fd00::1]/',
      'gopher://x',
    ];
    for (const url of bad) {
      const answer = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url } });
      expect({ url, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.details?.[0]?.field }).toEqual({
        url,
        status: 400,
        code: 'VALIDATION_FAILED',
        field: 'url',
      });
    }
    // Names: resolved (a stub) when stored, every address checked.
    stubbedNames.set('inside.example', ['93.184.215.14', '10.1.2.3']);
    stubbedNames.set('metadata.example', ['169.254.169.254']);
    const named = [];
    for (const host of ['inside.example', 'metadata.example', 'nowhere.example']) {
      const answer = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: `https://${host}/hook` } });
      named.push([answer.status, answer.body.error?.details?.[0]?.issue]);
    }
    expect(named).toEqual([
      [400, 'must not name a host that resolves to a private address'],
      [400, 'must not name a host that resolves to a link-local address'],
      [400, 'must name a host that resolves (ENOTFOUND)'],
    ]);
    const unknownType = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: receiver.url, events: ['key.exploded'] } });
    const unknownField = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: receiver.url, secret: 'mine' } });
    expect([unknownType.status, unknownField.status]).toEqual([400, 400]);
    const list = await call('list-webhook-endpoints', { key: team.key, query: { team_id: team.teamId } });
    expect(list.body.data).toEqual([]);
  });

  it('a team has at most 10 endpoints, even when 12 are created at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: `${receiver.url}/${index}` } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(10).fill(201), 400, 400]);
    const refused = answers.find((answer) => answer.status === 400);
    expect(refused?.body.error.details[0].issue).toMatch(/10 webhook endpoints/);
    for (const answer of answers.filter((one) => one.status === 201)) await deleteEndpoint(answer.body.data.id);
  });

  it('every action on an endpoint is audited under the endpoint (never with its secret), in the archive’s schema', async () => {
    // Act
    const endpoint = await createEndpoint();
    await call('update-webhook-endpoint', { key: team.key, body: { endpoint_id: endpoint.id, description: 'renamed' } });
    const rotated = await call('rotate-webhook-secret', { key: team.key, body: { endpoint_id: endpoint.id } });
    const sent = await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    await call('redeliver-webhook', { key: team.key, body: { event_id: sent.body.data.event_id } });
    await queue.runDue();
    await deleteEndpoint(endpoint.id);
    const { items } = await testServices().audit.auditPage({ attribute: 'pk', value: `WEBHOOK#${endpoint.id}`, limit: 20 });

    // Assess
    expect(items.map((item) => item.event_type).reverse()).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.test_sent',
      'webhook_endpoint.redelivered',
      'webhook_endpoint.deleted',
    ]);
    expect(items.map((item) => parseAuditEvent(item).ok)).toEqual(Array(6).fill(true));
    expect(items.find((item) => item.event_type === 'webhook_endpoint.updated')?.changed_fields).toEqual(['description']);
    for (const secret of [endpoint.secret, rotated.body.data.secret as string]) expect(JSON.stringify(items)).not.toContain(secret.slice(6));
  });

  it('with WEBHOOK_ALLOW_LOOPBACK=false (as in AWS) every loopback spelling → 400', async () => {
    // Prepare: the policy npm start builds from the setting
    const strict = { httpsOnly: false, allowLoopback: readSettings({ WEBHOOK_ALLOW_LOOPBACK: 'false' }).webhookAllowLoopback };
    const spellings = [
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f000001',
      '0x7f.1',
      '017700000001',
      '0177.0.0.1',
      '[::1]',
      '[0:0:0:0:0:0:0:1]',
      '[::ffff:127.0.0.1]',
      'localhost',
      'LOCALHOST.',
    ];
    useTestServices({ webhookPorts: ports(strict), expiry });
    const answers: string[] = [];
    try {
      // Act
      for (const host of spellings) {
        const answer = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url: `http://${host}:8080/hook` } });
        answers.push(`${host} ${answer.status} ${answer.body.error?.details?.[0]?.field}`);
      }
    } finally {
      useTestServices({ webhookPorts: ports(policy), expiry });
    }

    // Assess
    expect(strict.allowLoopback).toBe(false);
    expect(answers).toEqual(spellings.map((host) => `${host} 400 url`));
    expect(readSettings({}).webhookAllowLoopback).toBe(true);
  });

  it('another team can neither list, change, delete, test, rotate nor read the deliveries of an endpoint: 404 / 403', async () => {
    const endpoint = await createEndpoint();
    const other = await newTeam();
    const answers = {
      list: (await call('list-webhook-endpoints', { key: other.key, query: { team_id: team.teamId } })).status,
      update: (await call('update-webhook-endpoint', { key: other.key, body: { endpoint_id: endpoint.id, is_active: false } })).status,
      delete: (await call('delete-webhook-endpoint', { key: other.key, body: { endpoint_id: endpoint.id } })).status,
      test: (await call('send-test-webhook', { key: other.key, body: { endpoint_id: endpoint.id } })).status,
      rotate: (await call('rotate-webhook-secret', { key: other.key, body: { endpoint_id: endpoint.id } })).status,
      deliveries: (await call('list-webhook-deliveries', { key: other.key, query: { endpoint_id: endpoint.id } })).status,
    };
    expect(answers).toEqual({ list: 403, update: 404, delete: 404, test: 404, rotate: 404, deliveries: 404 });
    expect((await testServices().webhooks.getEndpoint(endpoint.id))?.is_active).toBe(true);
    await deleteEndpoint(endpoint.id);
  });
});

describe('deliveries', () => {
  it('send-test delivers webhook.test, signed so standardwebhooks verifies it, within 5 minutes of now', async () => {
    const endpoint = await createEndpoint();
    const answer = await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    expect(answer.status).toBe(202);
    await queue.runDue();

    expect(receiver.received).toHaveLength(1);
    const payload = verified(receiver.received[0] as Received, endpoint.secret);
    expect(payload.type).toBe('webhook.test');
    expect(receiver.received[0]?.headers['webhook-id']).toBe(answer.body.data.event_id);
    expect(Math.abs(Number(receiver.received[0]?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    await deleteEndpoint(endpoint.id);
  });

  it('key.created, key.updated, key.disabled, key.enabled, key.regenerated and key.deleted are delivered, verifiable, with no key value', async () => {
    const endpoint = await createEndpoint();
    const since = clock.now().toISOString();
    const key = await createKey(team, { name: 'observed' });
    await call('update-api-key', { key: team.key, body: { key_id: key.id, description: 'edited' } });
    await call('update-api-key', { key: team.key, body: { key_id: key.id, is_active: false } });
    await call('update-api-key', { key: team.key, body: { key_id: key.id, is_active: true } });
    const rolled = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id, grace_period_days: 1 } });
    await call('delete-api-key', { key: team.key, body: { key_id: key.id, confirm_deletion: true } });

    await publishAuditOf(key.id, since);

    expect(receiver.types()).toEqual(['key.created', 'key.updated', 'key.disabled', 'key.enabled', 'key.regenerated', 'key.deleted']);
    for (const entry of receiver.received) {
      const payload = verified(entry, endpoint.secret);
      expect(payload.data.key_id).toBe(key.id);
      expect(entry.body).not.toContain(key.key);
      expect(entry.body).not.toContain(String(rolled.body.new_key ?? rolled.body.data?.key ?? 'none'));
      expect(entry.body).not.toMatch(/[0-9a-f]{64}/);
    }
    const updated = verified(receiver.received[1] as Received, endpoint.secret);
    expect(updated.data.changed_fields).toEqual(['description']);
    // Every key event names the value by its prefix and last four characters (never the value).
    expect([updated.data.key_prefix, updated.data.last_four]).toEqual([key.key.slice(0, 20), key.key.slice(-4)]);
    const deleted = verified(receiver.received[5] as Received, endpoint.secret);
    expect(deleted.data).toEqual(expect.objectContaining({ key_prefix: expect.any(String), last_four: expect.any(String), reason: null }));
    const regenerated = verified(receiver.received[4] as Received, endpoint.secret);
    expect(regenerated.data.old_value_ends_at).toEqual(expect.any(String));
    await deleteEndpoint(endpoint.id);
  });

  it('an event filter is honoured, and update-webhook-endpoint changes it', async () => {
    const endpoint = await createEndpoint({ events: ['key.deleted'] });
    const since = clock.now().toISOString();
    const first = await createKey(team, { name: 'filtered' });
    await call('delete-api-key', { key: team.key, body: { key_id: first.id, confirm_deletion: true } });
    await publishAuditOf(first.id, since);
    expect(receiver.types()).toEqual(['key.deleted']);

    const changed = await call('update-webhook-endpoint', { key: team.key, body: { endpoint_id: endpoint.id, events: ['key.created'] } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.events).toEqual(['key.created']);
    receiver.received.length = 0;
    const since2 = clock.now().toISOString();
    const second = await createKey(team, { name: 'filtered again' });
    await call('delete-api-key', { key: team.key, body: { key_id: second.id, confirm_deletion: true } });
    await publishAuditOf(second.id, since2);
    expect(receiver.types()).toEqual(['key.created']);
    await deleteEndpoint(endpoint.id);
  });

  it('a 500 is retried on the schedule with the same webhook-id; the deliveries list shows each attempt with its status', async () => {
    const endpoint = await createEndpoint();
    receiver.statuses = [500, 503];
    await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    expect(queue.pending().map((job) => job.attempt)).toEqual([2]);
    expect(await queue.tick((RETRY_DELAYS_SECONDS[0] - 1) * 1000)).toBe(0);
    expect(await queue.tick(1000)).toBe(1);
    expect(await queue.tick(RETRY_DELAYS_SECONDS[1] * 1000)).toBe(1);

    expect(receiver.received.map((entry) => entry.headers['webhook-id'])).toEqual(Array(3).fill(receiver.received[0]?.headers['webhook-id']));
    const deliveries = await call('list-webhook-deliveries', { key: team.key, query: { endpoint_id: endpoint.id } });
    expect(
      deliveries.body.data.map((entry: { attempt: number; status_code: number; outcome: string }) => [entry.attempt, entry.status_code, entry.outcome]),
    ).toEqual([
      [3, 204, 'succeeded'],
      [2, 503, 'retrying'],
      [1, 500, 'retrying'],
    ]);
    await deleteEndpoint(endpoint.id);
  });

  it('a 410 disables the endpoint at once; it receives nothing more', async () => {
    const endpoint = await createEndpoint();
    receiver.statuses = [410];
    await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    const stored = await testServices().webhooks.getEndpoint(endpoint.id);
    expect([stored?.is_active, stored?.disabled_reason]).toEqual([false, 'the endpoint answered 410 Gone']);
    expect(queue.pending()).toEqual([]);

    const since = clock.now().toISOString();
    const key = await createKey(team, { name: 'after 410' });
    await publishAuditOf(key.id, since);
    const test = await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    expect(test.status).toBe(409);
    expect(receiver.received).toHaveLength(1);
    await deleteEndpoint(endpoint.id);
  });

  it('an endpoint failing for 5 days is disabled', async () => {
    const endpoint = await createEndpoint();
    receiver.statuses = Array(10).fill(500);
    await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    for (const delay of RETRY_DELAYS_SECONDS) await queue.tick(delay * 1000);
    // 5 s … 10 h: about 27.6 h of retries, all failing: not yet 5 days.
    expect((await testServices().webhooks.getEndpoint(endpoint.id))?.is_active).toBe(true);
    clock.advance(4 * 24 * 3600 * 1000);
    await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    const stored = await testServices().webhooks.getEndpoint(endpoint.id);
    expect([stored?.is_active, stored?.disabled_reason]).toEqual([false, 'every delivery failed for 5 days']);
    await deleteEndpoint(endpoint.id);
  });

  it('redeliver-webhook sends an event again at once with its original webhook-id', async () => {
    const endpoint = await createEndpoint();
    const sent = await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    const deliveries = await call('list-webhook-deliveries', { key: team.key, query: { endpoint_id: endpoint.id } });

    const byDelivery = await call('redeliver-webhook', { key: team.key, body: { delivery_id: deliveries.body.data[0].id } });
    const byEvent = await call('redeliver-webhook', { key: team.key, body: { event_id: sent.body.data.event_id } });
    await queue.runDue();

    expect([byDelivery.status, byEvent.status]).toEqual([202, 202]);
    expect(receiver.received.map((entry) => entry.headers['webhook-id'])).toEqual(Array(3).fill(sent.body.data.event_id));
    const unknown = await call('redeliver-webhook', { key: team.key, body: { event_id: 'msg_01JDQ4W1V8T6Y3M2K9P0RS5XYZ' } });
    expect(unknown.status).toBe(404);
    for (const body of [{}, { delivery_id: deliveries.body.data[0].id, event_id: sent.body.data.event_id }]) {
      const neither = await call('redeliver-webhook', { key: team.key, body });
      expect([neither.status, neither.body.error.details]).toEqual([
        400,
        [{ field: 'delivery_id', issue: 'give exactly one of delivery_id (that delivery’s endpoint) or event_id (every endpoint that takes its type)' }],
      ]);
    }
    await deleteEndpoint(endpoint.id);
  });

  it('after rotate-webhook-secret deliveries verify with the new secret (and, for 24 hours, with the old one too)', async () => {
    const endpoint = await createEndpoint();
    const rotated = await call('rotate-webhook-secret', { key: team.key, body: { endpoint_id: endpoint.id } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(endpoint.secret);
    await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpoint.id } });
    await queue.runDue();
    const during = receiver.received[0] as Received;
    expect(verified(during, rotated.body.data.secret).type).toBe('webhook.test');
    expect(verified(during, endpoint.secret).type).toBe('webhook.test');
    expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    await deleteEndpoint(endpoint.id);
  });
});

describe('expiry notices', () => {
  const DAY = 24 * 3600 * 1000;
  const auditTypes = async (keyId: string) =>
    (await testServices().audit.auditPage({ attribute: 'pk', value: `KEY#${keyId}`, limit: 50 })).items.map((item) => item.event_type).reverse();

  it('key.expiring 7 days and 1 day ahead and key.expired at expires_at: each written once, audited and delivered', async () => {
    // Prepare
    const endpoint = await createEndpoint({ events: ['key.expiring', 'key.expired'] });
    const since = clock.now().toISOString();
    const expiresAt = new Date(clock.now().getTime() + 8 * DAY).toISOString();
    const key = await createKey(team, { name: 'expiring', expires_at: expiresAt });
    expect(expiry.queue.pending().map((job) => [job.notice, job.at])).toEqual([
      ['7d', new Date(Date.parse(expiresAt) - 7 * DAY).toISOString()],
      ['1d', new Date(Date.parse(expiresAt) - DAY).toISOString()],
      ['expired', expiresAt],
    ]);

    // Act: a day passes (the 7-day warning), six more (the 1-day one), then the last
    const fired = [await expiry.queue.tick(DAY - 1000), await expiry.queue.tick(1000), await expiry.queue.tick(6 * DAY), await expiry.queue.tick(DAY)];
    // Delivered now (receivers check webhook-timestamp against their own clock); the events keep their own times.
    clock.set(Date.now());
    await publishAuditOf(key.id, since);

    // Assess
    expect(fired).toEqual([0, 1, 1, 1]);
    expect(await auditTypes(key.id)).toEqual(['key.created', 'key.expiring', 'key.expiring', 'key.expired']);
    expect(receiver.types()).toEqual(['key.expiring', 'key.expiring', 'key.expired']);
    const payloads = receiver.received.map((entry) => verified(entry, endpoint.secret));
    expect(payloads.map((payload) => payload.data.expires_at)).toEqual([expiresAt, expiresAt, expiresAt]);
    expect(payloads[0]?.data).toEqual(
      expect.objectContaining({ key_id: key.id, name: 'expiring', key_prefix: expect.any(String), last_four: key.key.slice(-4) }),
    );

    // A second fire of a notice writes nothing
    const again = await expiry.queue.later({ key_id: key.id, expires_at: expiresAt, notice: 'expired' }, 0).then(() => expiry.queue.runDue());
    expect(again).toBe(1);
    expect(await auditTypes(key.id)).toHaveLength(4);
    await deleteEndpoint(endpoint.id);
  });

  it('a warning whose moment has passed when expires_at is set is not sent; a key expiring in 5 s gets key.expired only', async () => {
    const expiresAt = new Date(clock.now().getTime() + 5000).toISOString();
    const key = await createKey(team, { name: 'soon', expires_at: expiresAt });
    expect(
      expiry.queue
        .pending()
        .filter((job) => job.key_id === key.id)
        .map((job) => job.notice),
    ).toEqual(['expired']);
    expect(await expiry.queue.tick(5000)).toBe(1);
    expect(await auditTypes(key.id)).toEqual(['key.created', 'key.expired']);
  });

  it('changing expires_at moves the notices; removing it or deleting the key drops them; a stale notice writes nothing', async () => {
    const first = new Date(clock.now().getTime() + 3 * DAY).toISOString();
    const second = new Date(clock.now().getTime() + 10 * DAY).toISOString();
    const key = await createKey(team, { name: 'moving', expires_at: first });
    const mine = () =>
      expiry.queue
        .pending()
        .filter((job) => job.key_id === key.id)
        .map((job) => `${job.notice}@${job.expires_at}`);
    expect(mine()).toEqual([`1d@${first}`, `expired@${first}`]);

    await call('update-api-key', { key: team.key, body: { key_id: key.id, expires_at: second } });
    expect(mine()).toEqual([`7d@${second}`, `1d@${second}`, `expired@${second}`]);

    // A notice of the old expiry that still fires (as an EventBridge schedule whose delete failed would) does nothing
    await expiry.queue.later({ key_id: key.id, expires_at: first, notice: 'expired' }, 0);
    await expiry.queue.runDue();
    expect(await auditTypes(key.id)).toEqual(['key.created', 'key.updated']);

    await call('update-api-key', { key: team.key, body: { key_id: key.id, expires_at: null } });
    expect(mine()).toEqual([]);
    await call('update-api-key', { key: team.key, body: { key_id: key.id, expires_at: second } });
    await call('delete-api-key', { key: team.key, body: { key_id: key.id, confirm_deletion: true } });
    expect(mine()).toEqual([]);
  });
});
