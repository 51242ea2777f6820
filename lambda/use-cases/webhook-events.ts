/**
 * Events as kept for delivery, delivery ids, and the test event: what the
 * routes that queue a delivery need without the delivery itself (so their
 * bundles carry no signing library and no HTTP client).
 */
import { DELIVERY_RETENTION_DAYS, type WebhookEventType } from '../contract/webhooks';
import { payloadOf, type LifecycleEvent } from '../domain/lifecycle-events';
import type { WebhookEndpointItem } from '../domain/webhook-endpoints';
import type { ClockPort, DeliveriesPort, WebhookAdaptersPort } from '../store/ports';
import { MS_PER_DAY, epochSeconds } from '../platform/clock';
import { newEventId } from '../platform/ids';
import type { StoredWebhookEvent } from '../domain/webhook-endpoints';
import { WEBHOOK_EVENT } from '../store/entities/webhook-event';

/** What queueing a test event takes: the kept events, the clock, the queue. */
export type TestEventPorts = DeliveriesPort & ClockPort & WebhookAdaptersPort;
type Services = TestEventPorts;

/** The kept form of an event. */
export function storedEvent(event: LifecycleEvent, at: Date, endpointId?: string): StoredWebhookEvent {
  return {
    ...WEBHOOK_EVENT.key(event.id),
    entity: 'webhook-event',
    id: event.id,
    type: event.type,
    team_id: event.team_id,
    timestamp: event.timestamp,
    payload: payloadOf(event),
    ...(endpointId ? { endpoint_id: endpointId } : {}),
    ttl: epochSeconds(new Date(at.getTime() + DELIVERY_RETENTION_DAYS * MS_PER_DAY)),
  };
}

/** A delivery id names its endpoint too: `dlv_<endpoint id>_<attempt id>`. */
export const deliveryIdOf = (endpointId: string, attemptId: string) => `dlv_${endpointId}_${attemptId}`;
export function parseDeliveryId(id: string): { endpointId: string; attemptId: string } | undefined {
  const match = /^dlv_([0-9A-HJKMNP-TV-Z]{26})_([0-9A-HJKMNP-TV-Z]{26})$/.exec(id);
  return match ? { endpointId: match[1] as string, attemptId: match[2] as string } : undefined;
}

/** A webhook.test event for one endpoint: kept, then queued as any first attempt. */
export async function queueTestEvent(services: Services, endpoint: WebhookEndpointItem): Promise<LifecycleEvent> {
  const now = services.clock.now();
  const event: LifecycleEvent = {
    id: `msg_${newEventId()}`,
    type: 'webhook.test' satisfies WebhookEventType,
    timestamp: now.toISOString(),
    team_id: endpoint.team_id,
    data: { team_id: endpoint.team_id, endpoint_id: endpoint.id, message: 'A test event, sent on request.' },
  };
  await services.deliveries.keepEvent(storedEvent(event, now, endpoint.id));
  await services.webhookPorts().queue.later({ event_id: event.id, endpoint_id: endpoint.id, attempt: 1 }, 0);
  return event;
}
