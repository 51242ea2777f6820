/**
 * The webhook contract (docs/webhooks.md): the event types a team can
 * subscribe to, the delivery rules of Standard Webhooks 1.0 as this service
 * applies them, and the EventBridge names a platform team routes by.
 * Dependency-free: the CDK app, the handlers and the local runtime read it.
 */

/** Every event type, in the order the reference lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'key.created',
  'key.updated',
  'key.disabled',
  'key.enabled',
  'key.regenerated',
  'key.old_value_expired',
  'key.expiring',
  'key.expired',
  'key.leaked',
  'key.unused',
  'key.deleted',
  'identity.created',
  'identity.updated',
  'identity.deleted',
  'credits.low',
  'credits.exhausted',
  'audit.checkpoint',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `source` of every event on the service's EventBridge bus. */
export const EVENT_SOURCE = 'api-key-service';
/** `detail-type` of every lifecycle event on the bus (the event's own type is `detail.type`). */
export const EVENT_DETAIL_TYPE = 'API key lifecycle event';

/**
 * Waits before each retry, in seconds: attempt 2 comes 5 s after attempt 1
 * fails, attempt 8 (the last) 10 h after attempt 7 (Standard Webhooks'
 * recommended schedule).
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
/** Attempts of one delivery, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** The longest delay an SQS message may carry; longer waits go through EventBridge Scheduler. */
export const QUEUE_MAX_DELAY_SECONDS = 900;
/** The longest `Retry-After` honoured (longer ones wait this long). */
export const MAX_RETRY_AFTER_SECONDS = 10 * 3600;

/** One attempt's time limit (connect, send and the answer). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/**
 * Attempts in flight to one endpoint at a time, in AWS and locally: a slow
 * or hanging receiver holds at most this many delivery slots (and Lambda
 * invocations), so it never delays another endpoint's deliveries.
 */
export const ENDPOINT_CONCURRENCY = 2;
/** How long a delivery slot is held at most: an attempt's time limit and a margin, so a slot a crashed attempt held frees itself. */
export const DELIVERY_SLOT_LEASE_MS = DELIVERY_TIMEOUT_MS + 15_000;
/** A job that found its endpoint's slots taken waits between these many seconds (spread, so waiting jobs do not return together). */
export const BUSY_WAIT_SECONDS = { min: 1, max: 5 } as const;
/** Bytes of a receiver's answer read (the rest is discarded unread). */
export const RESPONSE_BYTES_READ = 4 * 1024;
/** An endpoint failing without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
/** A rotated secret keeps signing beside the new one this long. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** Endpoints one team may have. */
export const MAX_ENDPOINTS_PER_TEAM = 10;
/** Longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;
/** Deliveries and stored events are kept this long (days). */
export const DELIVERY_RETENTION_DAYS = 30;

/** Expiry warnings: how long before `expires_at` each is sent. */
export const EXPIRY_WARNINGS = { '7d': 7 * 24 * 3600 * 1000, '1d': 24 * 3600 * 1000 } as const;
export type ExpiryNotice = keyof typeof EXPIRY_WARNINGS | 'expired';
