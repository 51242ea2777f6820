/**
 * What a team asks of its endpoints beyond their settings: a test event,
 * a redelivery, and the record of attempts. Each action is audited.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import type { WebhookEventType } from '../contract/webhooks';
import { actorOf, type RequestMeta } from '../domain/actor';
import { AuditEventType } from '../domain/audit-events';
import { deliveryResource, subscribes, type DeliveryResource, type WebhookEndpointItem } from '../domain/webhook-endpoints';
import type { ClockPort, DeliveriesPort, SettingsPort, WebhookAdaptersPort, WebhooksPort } from '../store/ports';
import { decodeCursor, encodeCursor } from '../platform/cursor';
import type { StoredWebhookEvent } from '../domain/webhook-endpoints';
import type { VerifiedKey } from '../verification/verify';
import { parseDeliveryId, queueTestEvent } from './webhook-events';
import { endpointAudit, ownEndpoint } from './endpoint-access';
import { endpointDeliveriesPage } from '../store/entities/delivery';

/** What the test, redelivery and delivery-list routes take: the endpoints, the deliveries, the clock, the cursor signing key, the queue. */
export type WebhookActionPorts = WebhooksPort & DeliveriesPort & ClockPort & SettingsPort<'cursorSigningKey'> & WebhookAdaptersPort;
type Services = WebhookActionPorts;

/** What a test or a redelivery queued. */
export interface QueuedDeliveries {
  event_id: string;
  event_type: WebhookEventType;
  endpoint_ids: string[];
}

const disabled = (endpoint: WebhookEndpointItem) =>
  new ApiError(ErrorCode.CONFLICT, 'The webhook endpoint is disabled: enable it first (set is_active to true).', [
    { field: 'endpoint_id', issue: `disabled${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}` },
  ]);

export async function sendTest(services: Services, caller: VerifiedKey, input: { endpoint_id: string }, meta: RequestMeta): Promise<QueuedDeliveries> {
  const endpoint = await ownEndpoint(services, caller, input.endpoint_id);
  if (!endpoint.is_active) throw disabled(endpoint);
  const event = await queueTestEvent(services, endpoint);
  await services.webhooks.recordAction(
    endpointAudit(AuditEventType.WEBHOOK_TEST_SENT, endpoint, actorOf(caller, meta), services.clock.now(), { reason: event.id }),
  );
  return { event_id: event.id, event_type: event.type, endpoint_ids: [endpoint.id] };
}

const noEvent = (field: string, id: string) =>
  new ApiError(ErrorCode.NOT_FOUND, 'No event with this id was delivered to the calling key’s team in the last 30 days.', [
    { field, issue: `not found: ${id}` },
  ]);

/**
 * Sends an event again at once, with its original `webhook-id`, one attempt
 * (no retries): to the delivery's endpoint, or (by event id) to every active
 * endpoint of the team that takes its type now.
 */
export async function redeliver(
  services: Services,
  caller: VerifiedKey,
  input: { delivery_id?: string; event_id?: string },
  meta: RequestMeta,
): Promise<QueuedDeliveries> {
  let event: StoredWebhookEvent;
  let targets: WebhookEndpointItem[];
  if (input.delivery_id !== undefined) {
    const named = parseDeliveryId(input.delivery_id);
    const endpoint = named && (await ownEndpoint(services, caller, named.endpointId).catch(() => undefined));
    const delivery = named && endpoint && (await services.deliveries.getDelivery(named.endpointId, named.attemptId));
    if (!endpoint || !delivery)
      throw new ApiError(ErrorCode.NOT_FOUND, 'No delivery with this id exists in the calling key’s team.', [
        { field: 'delivery_id', issue: `not found: ${input.delivery_id}` },
      ]);
    if (!endpoint.is_active) throw disabled(endpoint);
    const found = await services.deliveries.getEvent(delivery.event_id);
    if (!found) throw noEvent('delivery_id', delivery.event_id);
    event = found;
    targets = [endpoint];
  } else {
    const eventId = input.event_id as string;
    const found = await services.deliveries.getEvent(eventId);
    if (!found || found.team_id !== caller.team_id) throw noEvent('event_id', eventId);
    const endpoints = await services.webhooks.allEndpoints(caller.team_id);
    event = found;
    targets = found.endpoint_id
      ? endpoints.filter((endpoint) => endpoint.id === found.endpoint_id && endpoint.is_active)
      : endpoints.filter((endpoint) => subscribes(endpoint, found.type));
  }
  const eventId = event.id;
  const now = services.clock.now();
  for (const endpoint of targets) {
    await services.webhookPorts().queue.later({ event_id: eventId, endpoint_id: endpoint.id, attempt: 1, manual: true }, 0);
    await services.webhooks.recordAction(endpointAudit(AuditEventType.WEBHOOK_REDELIVERED, endpoint, actorOf(caller, meta), now, { reason: eventId }));
  }
  return { event_id: eventId, event_type: event.type, endpoint_ids: targets.map((endpoint) => endpoint.id) };
}

export async function listDeliveries(
  services: Services,
  caller: VerifiedKey,
  input: { endpoint_id: string; limit: number; cursor?: string },
): Promise<{ data: DeliveryResource[]; next_cursor: string | null }> {
  const endpoint = await ownEndpoint(services, caller, input.endpoint_id);
  const start = input.cursor === undefined ? undefined : decodeCursor(input.cursor, endpointDeliveriesPage(endpoint.id), services.settings.cursorSigningKey);
  const page = await services.deliveries.listDeliveries(endpoint.id, input.limit, start);
  return { data: page.items.map(deliveryResource), next_cursor: page.last ? encodeCursor(page.last, services.settings.cursorSigningKey) : null };
}
