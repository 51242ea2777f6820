/** The documented shapes of webhook endpoints and deliveries (read by the routes' openapi.ts only). */
import * as z from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks';
import { count, instant, meta, pageMeta } from './response-schemas';

export const endpointId = z.string().meta({ description: 'Webhook endpoint id (a 26-character ULID)', example: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ' });
const eventType = z.enum(WEBHOOK_EVENT_TYPES);

export const webhookEndpointSchema = z
  .strictObject({
    id: endpointId,
    team_id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()).meta({ description: 'Event types delivered; empty: every type' }),
    is_active: z.boolean(),
    created_at: instant,
    updated_at: instant,
    failing_since: instant.nullable().meta({ description: 'Since when every attempt has failed; null after a success' }),
    disabled_reason: z.string().nullable().meta({ description: 'Why the service disabled the endpoint (a 410, five days of failures)' }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const secret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
  .meta({ description: 'The signing secret (`whsec_` and base64): shown once, never again' });

export const endpointResponseSchema = z.strictObject({ data: webhookEndpointSchema, meta }).meta({ id: 'WebhookEndpointResponse' });
export const endpointListResponseSchema = z.strictObject({ data: z.array(webhookEndpointSchema), meta: pageMeta }).meta({ id: 'WebhookEndpointListResponse' });

export const deliverySchema = z
  .strictObject({
    id: z.string().meta({ description: 'Delivery id (`dlv_…`): what a redelivery names' }),
    endpoint_id: endpointId,
    event_id: z.string().meta({ description: 'The event id, the `webhook-id` header of every attempt (`msg_…`)' }),
    event_type: eventType,
    attempt: z.int().min(1),
    attempted_at: instant,
    status_code: z.int().nullable().meta({ description: "The receiver's HTTP status; null when no answer came" }),
    error: z.string().nullable().meta({ description: 'The network error or refusal, when no answer came' }),
    duration_ms: count,
    outcome: z.enum(['succeeded', 'retrying', 'failed', 'endpoint_disabled']),
    next_attempt_at: instant.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const queuedSchema = z
  .strictObject({
    data: z.strictObject({ event_id: z.string(), event_type: eventType, endpoint_ids: z.array(endpointId) }),
    meta,
  })
  .meta({ id: 'QueuedWebhookDeliveries' });
