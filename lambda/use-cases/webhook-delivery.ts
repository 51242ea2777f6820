/**
 * Webhook delivery: an event is kept and fanned out to every endpoint of
 * its team that subscribes to its type; each attempt is signed (Standard
 * Webhooks 1.0), recorded, and followed by what the rules say
 * (domain/webhook-endpoints.ts `nextStep`): done, a retry through the queue,
 * no more, or the endpoint disabled. The same code runs in the AWS delivery
 * function and in the local runtime; only the ports differ.
 */
import { BUSY_WAIT_SECONDS, DELIVERY_RETENTION_DAYS, DELIVERY_SLOT_LEASE_MS, ENDPOINT_CONCURRENCY } from '../contract/webhooks';
import { AuditEventType } from '../domain/audit-events';
import { systemActor } from '../domain/actor';
import type { LifecycleEvent } from '../domain/lifecycle-events';
import { nextStep, subscribes, type DeliveryItem, type DeliveryJob, type DeliveryOutcome, type WebhookEndpointItem } from '../domain/webhook-endpoints';
import type { ClockPort, DeliveriesPort, ObservePort, SlotsPort, WebhookAdaptersPort, WebhooksPort } from '../store/ports';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import { newEventId } from '../platform/ids';
import { signedHeaders } from '../platform/webhook-signing';
import { endpointAudit } from './endpoint-access';
import { deliveryIdOf, storedEvent } from './webhook-events';
import type { StoredWebhookEvent } from '../domain/webhook-endpoints';
import { DELIVERY } from '../store/entities/delivery';

/** What a delivery takes: the endpoints, the deliveries and their slots, the clock, the logger, the queue, the secret box and the transport. */
export type DeliveryPorts = WebhooksPort & DeliveriesPort & ClockPort & ObservePort & WebhookAdaptersPort;
/** An attempt also holds one of its endpoint's delivery slots. */
export type AttemptPorts = DeliveryPorts & SlotsPort;
type Services = DeliveryPorts;

/** The actor of what the delivery itself does (a disable). */
const DELIVERY_ACTOR = systemActor('webhook-delivery');

/**
 * Keeps `event` and queues the first attempt to each subscribed endpoint,
 * due at once; returns the jobs. Queued, not made here: each attempt then
 * runs on its own and waits only for its own endpoint's slots, so a slow
 * receiver never holds another team's delivery. An event seen twice (a
 * stream replay) is sent again with the same `webhook-id`, which receivers
 * deduplicate by.
 */
export async function acceptEvent(services: Services, event: LifecycleEvent): Promise<DeliveryJob[]> {
  // An endpoint hears of what happened after it was added, not before (the stream may run behind).
  const endpoints = (await services.webhooks.allEndpoints(event.team_id)).filter(
    (endpoint) => subscribes(endpoint, event.type) && Date.parse(endpoint.created_at) <= Date.parse(event.timestamp),
  );
  if (endpoints.length === 0) return [];
  await services.deliveries.keepEvent(storedEvent(event, services.clock.now()));
  const jobs = endpoints.map((endpoint) => ({ event_id: event.id, endpoint_id: endpoint.id, attempt: 1 }));
  const queue = services.webhookPorts().queue;
  await Promise.all(jobs.map((job) => queue.later(job, 0)));
  return jobs;
}

/** The secrets that sign now: the current one, and the one before a rotation while it overlaps. */
async function signingSecrets(services: Services, endpoint: WebhookEndpointItem, now: Date): Promise<string[]> {
  const box = services.webhookPorts().secrets;
  const secrets = [await box.open(endpoint.secret, endpoint.id)];
  if (endpoint.previous_secret && endpoint.previous_secret_until && Date.parse(endpoint.previous_secret_until) > now.getTime()) {
    secrets.push(await box.open(endpoint.previous_secret, endpoint.id));
  }
  return secrets;
}

/**
 * One attempt of `job`; what came of it, `skipped` when the event or the
 * endpoint is gone or the endpoint is disabled, or `busy` when the endpoint
 * already has ENDPOINT_CONCURRENCY attempts in flight: the job then goes
 * back on the queue a few seconds later, the same attempt.
 */
export async function attemptDelivery(services: AttemptPorts, job: DeliveryJob): Promise<DeliveryOutcome | 'skipped' | 'busy'> {
  const [event, endpoint] = await Promise.all([services.deliveries.getEvent(job.event_id), services.webhooks.getEndpoint(job.endpoint_id)]);
  if (!event || !endpoint || !endpoint.is_active || endpoint.team_id !== event.team_id) return 'skipped';
  const first = Math.floor(Math.random() * ENDPOINT_CONCURRENCY);
  const slot = await services.slots.claim(endpoint.id, services.clock.now().getTime(), DELIVERY_SLOT_LEASE_MS, first);
  if (!slot) {
    const { min, max } = BUSY_WAIT_SECONDS;
    await services.webhookPorts().queue.later(job, min + Math.floor(Math.random() * (max - min + 1)));
    return 'busy';
  }
  try {
    return await attemptHolding(services, job, event, endpoint);
  } finally {
    await services.slots.release(slot);
  }
}

/** The attempt itself, while it holds one of the endpoint's slots. */
async function attemptHolding(services: Services, job: DeliveryJob, event: StoredWebhookEvent, endpoint: WebhookEndpointItem): Promise<DeliveryOutcome> {
  const ports = services.webhookPorts();
  const now = services.clock.now();
  const headers = signedHeaders(event.id, now, event.payload, await signingSecrets(services, endpoint, now));
  const result = await ports.post(endpoint.url, headers, event.payload);
  const after = services.clock.now();
  const step = nextStep(job, result, endpoint.failing_since, after);
  const outcome: DeliveryOutcome =
    step.kind === 'done' ? 'succeeded' : step.kind === 'retry' ? 'retrying' : step.kind === 'disable' ? 'endpoint_disabled' : 'failed';
  const attemptId = newEventId();
  const delivery: DeliveryItem = {
    ...DELIVERY.key(endpoint.id, attemptId),
    entity: 'delivery',
    id: deliveryIdOf(endpoint.id, attemptId),
    endpoint_id: endpoint.id,
    team_id: endpoint.team_id,
    event_id: event.id,
    event_type: event.type,
    attempt: job.attempt,
    attempted_at: now.toISOString(),
    status_code: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    outcome,
    next_attempt_at: step.kind === 'retry' ? new Date(after.getTime() + step.afterSeconds * 1000).toISOString() : null,
    ttl: epochSeconds(new Date(now.getTime() + DELIVERY_RETENTION_DAYS * MS_PER_DAY)),
  };
  await services.deliveries.putDelivery(delivery);
  if (step.kind === 'done') await services.webhooks.noteOutcome(endpoint.id, true, after);
  else if (step.kind === 'disable') await disableEndpoint(services, endpoint, step.reason, after);
  else await services.webhooks.noteOutcome(endpoint.id, false, now);
  if (step.kind === 'retry') await ports.queue.later({ ...job, attempt: job.attempt + 1 }, step.afterSeconds);
  services.observe.logger.info('webhook attempt', {
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: event.type,
    attempt: job.attempt,
    status_code: result.status,
    outcome,
    duration_ms: result.durationMs,
  });
  return outcome;
}

/** Disabled by the service (a 410, five days of failures), audited; a lost race (changed meanwhile) is retried once. */
async function disableEndpoint(services: Services, endpoint: WebhookEndpointItem, reason: string, at: Date): Promise<void> {
  for (let current: WebhookEndpointItem | undefined = endpoint, tries = 0; current && current.is_active && tries < 3; tries++) {
    const audit = endpointAudit(AuditEventType.WEBHOOK_ENDPOINT_DISABLED, { ...current, is_active: false }, DELIVERY_ACTOR, at, { reason });
    if (await services.webhooks.changeEndpoint(current, { is_active: false, disabled_reason: reason }, at, audit)) return;
    current = await services.webhooks.getEndpoint(endpoint.id);
  }
}
