/**
 * A delivered event's body, kept for redelivery: `WHEVENT#<message id>` /
 * `EVENT`, removed by TTL after 30 days.
 */
import type { StoredWebhookEvent } from '../../domain/webhook-endpoints';
import { WEBHOOK_EVENT_TYPES } from '../../contract/webhooks';
import { NUMBER, OPTIONAL_STRING, STRING, defineEntity, type EntityAccess } from './entity';

export const WEBHOOK_EVENT = /* @__PURE__ */ defineEntity<StoredWebhookEvent>()({
  name: 'webhook event',
  table: 'key',
  key: (messageId: string) => ({ pk: `WHEVENT#${messageId}`, sk: 'EVENT' }),
  attributes: {
    pk: STRING,
    sk: STRING,
    entity: ['webhook-event'],
    id: STRING,
    type: WEBHOOK_EVENT_TYPES,
    team_id: STRING,
    timestamp: STRING,
    payload: STRING,
    endpoint_id: OPTIONAL_STRING,
    ttl: NUMBER,
  },
});

/** The access patterns on kept events. */
export const WEBHOOK_EVENT_ACCESS = {
  keepWebhookEvent: ['PutItem'],
  readWebhookEvent: ['GetItem'],
} as const satisfies EntityAccess;
