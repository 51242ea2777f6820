/**
 * One delivery attempt of a webhook endpoint: `WEBHOOK#<id>` /
 * `DELIVERY#<ulid>` (oldest first on the sort key), removed by TTL after 30 days.
 */
import type { DeliveryItem } from '../../domain/webhook-endpoints';
import { WEBHOOK_EVENT_TYPES } from '../../contract/webhooks';
import { ANY_ID, NUMBER, NUMBER_OR_NULL, STRING, STRING_OR_NULL, defineEntity, positionOf, type EntityAccess } from './entity';

/** Sort-key prefix of an endpoint's delivery items. */
export const DELIVERY_PREFIX = 'DELIVERY#';

export const DELIVERY = /* @__PURE__ */ defineEntity<DeliveryItem>()({
  name: 'webhook delivery',
  table: 'key',
  key: (endpointId: string, deliveryId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: `${DELIVERY_PREFIX}${deliveryId}` }),
  attributes: {
    pk: STRING,
    sk: STRING,
    entity: ['delivery'],
    id: STRING,
    endpoint_id: STRING,
    team_id: STRING,
    event_id: STRING,
    event_type: WEBHOOK_EVENT_TYPES,
    attempt: NUMBER,
    attempted_at: STRING,
    status_code: NUMBER_OR_NULL,
    error: STRING_OR_NULL,
    duration_ms: NUMBER,
    outcome: ['succeeded', 'retrying', 'failed', 'endpoint_disabled'],
    next_attempt_at: STRING_OR_NULL,
    ttl: NUMBER,
  },
});

/** The last delivery of a page of one endpoint's deliveries (the delivery list's cursor). */
export const endpointDeliveriesPage = (endpointId: string) => positionOf(DELIVERY.key(endpointId, ANY_ID));

/** The access patterns on delivery items. */
export const DELIVERY_ACCESS = {
  recordDelivery: ['PutItem'],
  readDeliveries: ['Query', 'GetItem'],
} as const satisfies EntityAccess;
