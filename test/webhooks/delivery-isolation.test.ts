/**
 * One endpoint never delays another (issue 43: another team's event arrived
 * 10-15 s late behind a receiver that hung). First attempts go on the queue,
 * due at once; locally the queue runs one attempt per endpoint at a time,
 * and everywhere an attempt holds one of its endpoint's ENDPOINT_CONCURRENCY
 * delivery slots (a conditional write, DynamoDB Local here), so a hanging
 * receiver holds at most that many attempts (and, in AWS, invocations).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { systemClock } from '../../lambda/platform/clock';
import { localSecretBox } from '../../lambda/platform/secret-box';
import { httpPoster } from '../../lambda/adapters/webhook-transport';
import { makeHandler as makePublishHandler } from '../../lambda/handlers/publish-events';
import { deliverEvent, runJob } from '../../lambda/handlers/deliver-webhooks';
import { BUSY_WAIT_SECONDS, DELIVERY_SLOT_LEASE_MS, ENDPOINT_CONCURRENCY } from '../../lambda/contract/webhooks';
import { localDeliveryQueue } from '../../local/webhooks';
import type { LocalJobQueue } from '../../local/job-queue';
import type { DeliveryJob } from '../../lambda/domain/webhook-endpoints';
import type { AttemptResult } from '../../lambda/adapters/webhook-transport';
import { DeliverySlotStore } from '../../lambda/store/delivery-slots';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { stubResolver, testObservability, testServices, useTestServices } from '../support/services';

/** A receiver on loopback: `hang` holds every request open until `stop`; otherwise 204 at once. Records when each request arrived. */
class Receiver {
  readonly arrivals: number[] = [];
  private readonly sockets = new Set<Socket>();
  private server!: Server;
  url = '';
  constructor(private readonly hang: boolean) {}

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on('end', () => {
        this.arrivals.push(Date.now());
        if (!this.hang) response.writeHead(204).end();
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const policy = { httpsOnly: false, allowLoopback: true };
const ports = (queue: { later: (job: DeliveryJob, delaySeconds: number) => Promise<void> }, post = httpPoster({ policy, resolver: stubResolver })) => ({
  policy,
  queue,
  secrets: localSecretBox(randomBytes(32)),
  post,
  resolve: stubResolver,
});

afterAll(() => useTestServices({}));

/** The stream records of a key's audit trail (oldest first), as the audit stream hands them to the publisher. */
async function streamRecordsOf(keyId: string): Promise<DynamoDBStreamEvent['Records']> {
  const page = await testServices().audit.auditPage({ attribute: 'pk', value: `KEY#${keyId}`, limit: 50 });
  return page.items.reverse().map((item, index) => ({
    eventName: 'INSERT',
    dynamodb: { SequenceNumber: String(Date.now() * 100 + index), NewImage: marshall(item) as never },
  }));
}

async function endpointFor(team: TestTeam, url: string): Promise<string> {
  const created = await call('create-webhook-endpoint', { key: team.key, body: { team_id: team.teamId, url, events: ['key.created'] } });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

describe('a hanging receiver and another team’s fast one, over the local runtime’s queue', () => {
  let hanging: Receiver;
  let fast: Receiver;
  let queue: LocalJobQueue<DeliveryJob>;

  beforeAll(async () => {
    [hanging, fast] = [new Receiver(true), new Receiver(false)];
    await Promise.all([hanging.start(), fast.start()]);
    queue = localDeliveryQueue({ clock: systemClock, services: testServices });
    useTestServices({ webhookPorts: ports(queue) });
  });

  afterAll(async () => {
    await hanging.stop();
    await fast.stop();
    await queue.stop();
  });

  it('the fast endpoint’s event arrives within 1 s while the other endpoint hangs; the hanging one holds one attempt', async () => {
    // Prepare: team A's endpoint hangs and has 3 key.created events; team B's answers at once and has 1, published after A's
    const [teamA, teamB] = [await newTeam(), await newTeam()];
    await endpointFor(teamB, fast.url);
    const endpointOfA = await endpointFor(teamA, hanging.url);
    const keysOfA = [await createKey(teamA), await createKey(teamA), await createKey(teamA)];
    const keyOfB = await createKey(teamB);
    const records = [...(await Promise.all(keysOfA.map((key) => streamRecordsOf(key.id)))).flat(), ...(await streamRecordsOf(keyOfB.id))];
    const publish = makePublishHandler(async (events) => {
      for (const event of events) await deliverEvent(testServices(), event);
    }, testObservability);

    // Act
    const started = Date.now();
    const answer = await publish({ Records: records });
    while (fast.arrivals.length === 0 && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 10));

    // Assess
    expect(answer.batchItemFailures).toEqual([]);
    const delay = (fast.arrivals[0] ?? Infinity) - started;
    process.stdout.write(`delivery isolation: the fast endpoint's event arrived ${delay} ms after publishing, behind a hanging endpoint\n`);
    expect(delay).toBeLessThan(1_000);
    // One attempt in flight to the hanging endpoint, its other two waiting in the queue behind it (all three kept until they ran).
    expect(hanging.arrivals).toHaveLength(1);
    expect(queue.pending().filter((job) => job.endpoint_id === endpointOfA && job.attempt === 1)).toHaveLength(3);
  });
});

describe('delivery slots (DynamoDB Local)', () => {
  /** A transport whose every post waits until `release()`; records each post. */
  function heldTransport() {
    const posts: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const post = async (url: string): Promise<AttemptResult> => {
      posts.push(url);
      await released;
      return { status: 204, error: null, durationMs: 1, retryAfterSeconds: null };
    };
    return { posts, post, release };
  }

  it(`5 attempts at once to one endpoint: ${ENDPOINT_CONCURRENCY} post, the others go back on the queue ${BUSY_WAIT_SECONDS.min}-${BUSY_WAIT_SECONDS.max} s later as the same attempt`, async () => {
    // Prepare
    const team = await newTeam();
    const queued: Array<[DeliveryJob, number]> = [];
    const transport = heldTransport();
    useTestServices({ webhookPorts: ports({ later: async (job, delay) => void queued.push([job, delay]) }, transport.post) });
    const endpointId = await endpointFor(team, 'http://127.0.0.1:9/held');
    const sent = await call('send-test-webhook', { key: team.key, body: { endpoint_id: endpointId } });
    const job = queued.shift()?.[0] as DeliveryJob;
    expect({ status: sent.status, job: job.endpoint_id }).toEqual({ status: 202, job: endpointId });

    // Act
    const attempts = Array.from({ length: 5 }, () => runJob(testServices(), job));
    while (transport.posts.length < ENDPOINT_CONCURRENCY || queued.length < 5 - ENDPOINT_CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 5));
    const postedWhileHeld = transport.posts.length;
    transport.release();
    const outcomes = await Promise.all(attempts);

    // Assess
    expect(postedWhileHeld).toBe(ENDPOINT_CONCURRENCY);
    expect(outcomes.sort()).toEqual([...Array(5 - ENDPOINT_CONCURRENCY).fill('busy'), ...Array(ENDPOINT_CONCURRENCY).fill('succeeded')].sort());
    for (const [requeued, delay] of queued) {
      expect(requeued).toEqual(job);
      expect(delay).toBeGreaterThanOrEqual(BUSY_WAIT_SECONDS.min);
      expect(delay).toBeLessThanOrEqual(BUSY_WAIT_SECONDS.max);
    }
    // Given back: the next attempt gets a slot at once.
    expect(await runJob(testServices(), job)).toBe('succeeded');
  });

  it('a slot held past its lease (a crashed attempt) is taken again; the late holder cannot give back the new one', async () => {
    const deliveries = new DeliverySlotStore(testServices().tables);
    const endpointId = `SLOTTEST${Date.now()}`;
    const t0 = Date.now();
    const held = [await deliveries.claim(endpointId, t0, DELIVERY_SLOT_LEASE_MS), await deliveries.claim(endpointId, t0 + 1_000, DELIVERY_SLOT_LEASE_MS)];
    expect(held.map((slot) => slot?.name).sort()).toEqual(['slot0', 'slot1']);
    expect(await deliveries.claim(endpointId, t0 + DELIVERY_SLOT_LEASE_MS - 1, DELIVERY_SLOT_LEASE_MS)).toBeUndefined();
    // slot0's lease has run out (its attempt crashed, say); slot1's has not.

    const taken = await deliveries.claim(endpointId, t0 + DELIVERY_SLOT_LEASE_MS, DELIVERY_SLOT_LEASE_MS);
    expect(taken?.name).toBe('slot0');
    await deliveries.release(held[0]!);
    expect(await deliveries.claim(endpointId, t0 + DELIVERY_SLOT_LEASE_MS, DELIVERY_SLOT_LEASE_MS)).toBeUndefined();
    await deliveries.release(taken!);
    expect((await deliveries.claim(endpointId, t0 + DELIVERY_SLOT_LEASE_MS, DELIVERY_SLOT_LEASE_MS))?.name).toBe('slot0');
  });
});
