/**
 * Webhook endpoints and deliveries: the stored shapes, what a reader sees
 * of them (never a secret), and the delivery rules of Standard Webhooks 1.0
 * as this service applies them (docs/webhooks.md).
 */
import { DISABLE_AFTER_FAILING_MS, MAX_ATTEMPTS, MAX_RETRY_AFTER_SECONDS, RETRY_DELAYS_SECONDS, type WebhookEventType } from '../contract/webhooks';

/** An endpoint item (key table, `WEBHOOK#<id>` / `WEBHOOK`). */
export interface WebhookEndpointItem {
  pk: string;
  sk: string;
  entity: 'webhook';
  id: string;
  team_id: string;
  url: string;
  description: string;
  /** Event types delivered; empty: every type. */
  events: string[];
  is_active: boolean;
  created_at: string;
  updated_at: string;
  created_by: string;
  revision: number;
  /** Since when every attempt failed (null: the last one succeeded, or none was made). */
  failing_since: string | null;
  /** Why the service disabled it (a 410, five days of failures); null otherwise. */
  disabled_reason: string | null;
  /** The signing secret, sealed (platform/secret-box.ts). */
  secret: string;
  /** The secret before the last rotation, sealed, while it still signs. */
  previous_secret?: string;
  previous_secret_until?: string;
  gsi1pk: string;
  gsi1sk: string;
}

/** What the API shows of an endpoint: never a secret, nor the storage keys. */
export type WebhookEndpointResource = Pick<
  WebhookEndpointItem,
  'id' | 'team_id' | 'url' | 'description' | 'events' | 'is_active' | 'created_at' | 'updated_at' | 'failing_since' | 'disabled_reason'
>;

export function endpointResource(item: WebhookEndpointItem): WebhookEndpointResource {
  return {
    id: item.id,
    team_id: item.team_id,
    url: item.url,
    description: item.description,
    events: item.events,
    is_active: item.is_active,
    created_at: item.created_at,
    updated_at: item.updated_at,
    failing_since: item.failing_since,
    disabled_reason: item.disabled_reason,
  };
}

/** Whether an endpoint takes events of `type` (webhook.test goes only to the endpoint it was sent to). */
export function subscribes(endpoint: Pick<WebhookEndpointItem, 'is_active' | 'events'>, type: WebhookEventType): boolean {
  return endpoint.is_active && type !== 'webhook.test' && (endpoint.events.length === 0 || endpoint.events.includes(type));
}

/** One attempt of one event to one endpoint (key table, `WEBHOOK#<endpoint>` / `DELIVERY#<id>`). */
export interface DeliveryItem {
  pk: string;
  sk: string;
  entity: 'delivery';
  id: string;
  endpoint_id: string;
  team_id: string;
  /** The event's `webhook-id`. */
  event_id: string;
  event_type: WebhookEventType;
  attempt: number;
  attempted_at: string;
  /** The receiver's HTTP status, or null when the attempt got none. */
  status_code: number | null;
  /** A network error or a refusal, in words; null when an answer came. */
  error: string | null;
  duration_ms: number;
  /** succeeded, retrying (another attempt is scheduled), failed (no more), or disabled (the answer disabled the endpoint). */
  outcome: DeliveryOutcome;
  next_attempt_at: string | null;
  ttl: number;
}

export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'endpoint_disabled';

export type DeliveryResource = Omit<DeliveryItem, 'pk' | 'sk' | 'entity' | 'ttl' | 'team_id'>;

export function deliveryResource(item: DeliveryItem): DeliveryResource {
  return {
    id: item.id,
    endpoint_id: item.endpoint_id,
    event_id: item.event_id,
    event_type: item.event_type,
    attempt: item.attempt,
    attempted_at: item.attempted_at,
    status_code: item.status_code,
    error: item.error,
    duration_ms: item.duration_ms,
    outcome: item.outcome,
    next_attempt_at: item.next_attempt_at,
  };
}

/** One queued attempt: which event, to which endpoint, which attempt. */
export interface DeliveryJob {
  event_id: string;
  endpoint_id: string;
  attempt: number;
  /** A redelivery asked for by the team: one attempt, no retries. */
  manual?: boolean;
}

/** What follows an attempt. */
export type NextStep = { kind: 'done' } | { kind: 'retry'; afterSeconds: number } | { kind: 'give_up' } | { kind: 'disable'; reason: string };

/**
 * The rules: 2xx succeeds; 410 disables the endpoint at once; anything else
 * (3xx included: redirects are never followed) fails and is retried on the
 * schedule, 429/502/503/504 after `Retry-After` when the receiver sent one
 * and it is longer; after the last attempt, or once the endpoint has failed
 * for five days, no more.
 */
export function nextStep(
  job: Pick<DeliveryJob, 'attempt' | 'manual'>,
  result: { status: number | null; retryAfterSeconds: number | null },
  failingSince: string | null,
  now: Date,
): NextStep {
  const { status } = result;
  if (status !== null && status >= 200 && status < 300) return { kind: 'done' };
  if (status === 410) return { kind: 'disable', reason: 'the endpoint answered 410 Gone' };
  if (failingSince !== null && now.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_FAILING_MS) {
    return { kind: 'disable', reason: 'every delivery failed for 5 days' };
  }
  if (job.manual || job.attempt >= MAX_ATTEMPTS) return { kind: 'give_up' };
  const scheduled = RETRY_DELAYS_SECONDS[job.attempt - 1] as number;
  const honoured = status === 429 || status === 502 || status === 503 || status === 504 ? (result.retryAfterSeconds ?? 0) : 0;
  return { kind: 'retry', afterSeconds: Math.max(scheduled, Math.min(honoured, MAX_RETRY_AFTER_SECONDS)) };
}

/** A delivered event as kept for redelivery (its body exactly as first sent). */
export interface StoredWebhookEvent {
  pk: string;
  sk: string;
  entity: 'webhook-event';
  /** The `webhook-id` (`msg_…`). */
  id: string;
  type: WebhookEventType;
  team_id: string;
  timestamp: string;
  payload: string;
  /** webhook.test only: the one endpoint it goes to. */
  endpoint_id?: string;
  ttl: number;
}
