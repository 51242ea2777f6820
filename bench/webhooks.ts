/**
 * Bench section 7, webhooks:
 *
 * - Key routes with and without lifecycle events: the same creates and
 *   edits, interleaved, while the event pipeline (the audit stream reader,
 *   the fan-out, signed deliveries to a loopback receiver) runs beside them
 *   or not. The routes' DynamoDB requests are counted by a proxy; the
 *   pipeline reads and writes the engine directly, so the counts are the
 *   routes' own. The flush of the verification analytics counters (when the
 *   oldest count held is 20 s old, by whichever request counts next, events
 *   or not) is counted apart and left out of the comparison: a round that
 *   happened to send it has it, with events on or off.
 * - Delivery throughput: events fanned out to a team's endpoints, each
 *   attempt signed, sent to a loopback receiver answering 204, and recorded.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServices, withWebhookPorts, type WebhookServices } from '../lambda/composition/services';
import { documentClientOf } from '../lambda/composition/dynamo';
import { systemClock } from '../lambda/platform/clock';
import { sinkObservability } from '../lambda/platform/observability-sinks';
import { localSecretBox } from '../lambda/platform/secret-box';
import { httpPoster } from '../lambda/adapters/webhook-transport';
import { systemResolver } from '../lambda/platform/address-policy';
import { makeHandler as makePublishHandler } from '../lambda/handlers/publish-events';
import { deliverEvent } from '../lambda/handlers/deliver-webhooks';
import { assignTeamPlan, bootstrapTeamKey, localUsageKeys } from '../lambda/handlers/bootstrap-team-key';
import { localDynamoClient } from '../local/dynamodb-local';
import { startAuditStreamArchiver } from '../local/audit-stream';
import { localDeliveryQueue } from '../local/webhooks';
import type { LocalJobQueue } from '../local/job-queue';
import type { DeliveryJob } from '../lambda/domain/webhook-endpoints';
import { ANALYTICS_FLUSH, analyticsFlushApart, countingProxy } from './counting-proxy';
import { localServer, send, servicesOn, type Tables } from './local-http';

const percentile = (values: readonly number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] as number;
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A receiver on loopback answering 204 to everything, counting what it got. */
async function receiver(): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The delivery side's services: on the engine itself (not through the
 * proxy), loopback allowed, jobs on the local runtime's queue (one attempt
 * per endpoint at a time, as npm start runs them).
 */
function deliveryServices(engineEndpoint: string, tables: Tables): WebhookServices & { jobs: LocalJobQueue<DeliveryJob> } {
  const policy = { httpsOnly: false, allowLoopback: true };
  const services = createServices({
    db: documentClientOf(localDynamoClient(engineEndpoint)),
    clock: systemClock,
    settings: { keyTableName: tables.keyTable, auditTableName: tables.auditTable, planRateLimit: 1_000_000, guessLimitPerMinute: 1_000_000 },
    observe: sinkObservability(
      () => undefined,
      () => undefined,
    ),
  });
  const queue = localDeliveryQueue({ clock: systemClock, services: () => delivery });
  // Only loopback addresses here: no name is ever looked up.
  const ports = { policy, secrets: localSecretBox(randomBytes(32)), post: httpPoster({ policy }), resolve: systemResolver, queue };
  const delivery = withWebhookPorts(services, () => ports);
  return Object.assign(delivery, { jobs: queue });
}

const route = (name: string) => `/functions/v1/${name}`;

type Delivery = ReturnType<typeof deliveryServices>;
type Server = Awaited<ReturnType<typeof localServer>>;
type Sink = Awaited<ReturnType<typeof receiver>>;

/**
 * A key's create and edit, timed in blocks with the event pipeline off and on (the audit stream read on from where
 * it stopped, its checkpoint; each event delivered at once), with the DynamoDB requests each sends.
 */
async function keyRouteFigures(
  run: {
    engineEndpoint: string;
    tables: Tables;
    delivery: Delivery;
    server: Server;
    sink: Sink;
    proxy: Awaited<ReturnType<typeof countingProxy>>;
    manager: { key: string };
    teamId: string;
  },
  rounds: number,
): Promise<Record<string, unknown>> {
  const { engineEndpoint, tables, delivery, server, sink, proxy, manager, teamId } = run;
  // The pipeline, off or on: the audit stream read on from where it stopped (its checkpoint), each event delivered at once.
  const checkpointDir = mkdtempSync(path.join(tmpdir(), 'bench-events-'));
  const startPipeline = () =>
    startAuditStreamArchiver({
      dynamoEndpoint: engineEndpoint,
      auditTableName: tables.auditTable,
      checkpointFile: path.join(checkpointDir, 'checkpoint.json'),
      pollMs: 100,
      handler: makePublishHandler(async (events) => {
        for (const event of events) await deliverEvent(delivery, event);
      }, delivery.observe),
    });

  const wall: Record<'without' | 'with', number[]> = { without: [], with: [] };
  const requests: Record<'without' | 'with', Record<string, number>> = { without: {}, with: {} };
  const once = async (variant: 'without' | 'with') => {
    proxy.take();
    const started = performance.now();
    const made = await send(server.url, 'POST', route('generate-api-key'), manager.key, {
      name: 'Bench webhook key',
      type: 'sk',
      environment: 'live',
      team_id: teamId,
    });
    const id = (made.body.data as { id: string }).id;
    await send(server.url, 'PATCH', route('update-api-key'), manager.key, { key_id: id, description: 'edited' });
    wall[variant].push(performance.now() - started);
    for (const [name, n] of Object.entries(proxy.take())) requests[variant][name] = (requests[variant][name] ?? 0) + n;
  };
  // Warm-up, then blocks of rounds: events off, then on (the reader catches up between blocks).
  for (let i = 0; i < 5; i++) await once('without');
  wall.without.length = 0;
  requests.without = {};
  let pipeline = await startPipeline();
  await pipeline.drain(60_000);
  await pipeline.stop();
  let deliveredDuring = 0;
  for (let block = 0; block < 5; block++) {
    for (let i = 0; i < rounds / 5; i++) await once('without');
    // Caught up on the block without events before the block with them is timed: it handles only its own events.
    pipeline = await startPipeline();
    await pipeline.drain(60_000);
    const deliveredBefore = sink.received();
    for (let i = 0; i < rounds / 5; i++) await once('with');
    await pipeline.drain(60_000);
    await pipeline.stop();
    await delivery.jobs.runDue();
    deliveredDuring += sink.received() - deliveredBefore;
  }
  rmSync(checkpointDir, { recursive: true, force: true });
  const perCall = (variant: 'without' | 'with') =>
    Object.entries(requests[variant])
      .filter(([name]) => name !== ANALYTICS_FLUSH)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, n]) => `${name}×${round(n / rounds, 2)}`)
      .join(' ');
  return {
    rounds,
    create_and_edit_ms_p50: { without_events: round(percentile(wall.without, 50)), with_events: round(percentile(wall.with, 50)) },
    p50_ratio: round(percentile(wall.with, 50) / percentile(wall.without, 50)),
    dynamodb_requests_per_create_and_edit: { without_events: perCall('without'), with_events: perCall('with') },
    same_requests: perCall('without') === perCall('with'),
    analytics_flushes: { without_events: requests.without[ANALYTICS_FLUSH] ?? 0, with_events: requests.with[ANALYTICS_FLUSH] ?? 0 },
    events_delivered: deliveredDuring,
  };
}

/** Throughput: events fanned out to 5 endpoints of one team, 8 events in flight. */
async function deliveryThroughput(
  run: { delivery: Delivery; routeServices: ReturnType<typeof servicesOn>; server: Server; sink: Sink },
  quick: boolean,
): Promise<Record<string, unknown>> {
  const { delivery, routeServices, server, sink } = run;
  const fn = route;
  const team2 = randomUUID();
  await assignTeamPlan(routeServices, team2, 'default', localUsageKeys);
  const manager2 = await bootstrapTeamKey(routeServices, { teamId: team2, environment: 'live', userId: randomUUID() });
  for (let i = 0; i < 5; i++) await send(server.url, 'POST', fn('create-webhook-endpoint'), manager2.key, { team_id: team2, url: `${sink.url}/${i}` });
  const events = quick ? 40 : 200;
  const started = performance.now();
  const before = sink.received();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < events) {
        const n = next++;
        await deliverEvent(delivery, {
          id: `msg_bench${n}_${randomUUID()}`,
          type: 'key.updated',
          timestamp: new Date().toISOString(),
          team_id: team2,
          data: {
            key_id: 'bench',
            team_id: team2,
            name: 'bench',
            type: 'sk',
            environment: 'live',
            key_prefix: null,
            last_four: null,
            actor: { user_id: 'bench', key_id: null },
            reason: null,
            changed_fields: ['description'],
          },
        });
      }
    }),
  );
  await delivery.jobs.runDue();
  const seconds = (performance.now() - started) / 1000;
  const delivered = sink.received() - before;
  return {
    delivery: { events, endpoints: 5, in_flight_events: 8, deliveries: delivered, deliveries_per_second: round(delivered / seconds, 1) },
  };
}

export async function webhookFigures(engineEndpoint: string, tables: Tables, quick: boolean): Promise<Record<string, unknown>> {
  const rounds = quick ? 40 : 150;
  const proxy = await countingProxy(engineEndpoint, analyticsFlushApart);
  const delivery = deliveryServices(engineEndpoint, tables);
  // The routes seal secrets with the same key the delivery side opens them with.
  const routeServices = withWebhookPorts(servicesOn(proxy.endpoint, tables), () => delivery.webhookPorts());
  const server = await localServer(routeServices);
  const sink = await receiver();
  try {
    const teamId = randomUUID();
    await assignTeamPlan(routeServices, teamId, 'default', localUsageKeys);
    const manager = await bootstrapTeamKey(routeServices, { teamId, environment: 'live', userId: randomUUID() });
    const endpoint = await send(server.url, 'POST', route('create-webhook-endpoint'), manager.key, { team_id: teamId, url: sink.url });
    if (endpoint.status !== 201) throw new Error(`create-webhook-endpoint answered ${endpoint.status}`);

    const keyRoutes = await keyRouteFigures({ engineEndpoint, tables, delivery, server, sink, proxy, manager, teamId }, rounds);
    return { key_routes: keyRoutes, ...(await deliveryThroughput({ delivery, routeServices, server, sink }, quick)) };
  } finally {
    await delivery.jobs.stop();
    await server.close();
    await proxy.close();
    await sink.close();
  }
}
