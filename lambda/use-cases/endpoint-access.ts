/**
 * Reaching a team's webhook endpoint, and the audit record of what is done
 * to one: shared by the endpoint routes, the test and redelivery routes, and
 * the delivery (kept apart so the routes that only read bundle nothing more).
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { type WebhookEndpointEvent } from '../domain/audit-events';
import { endpointResource, type WebhookEndpointItem, type WebhookEndpointResource } from '../domain/webhook-endpoints';
import type { WebhooksPort } from '../store/ports';
import type { VerifiedKey } from '../verification/verify';
import { entityTagOf } from '../domain/revision';
import { auditItem } from '../store/entities/audit-record';

/** What reaching an endpoint reads: the webhook store. */
export type EndpointAccessPorts = WebhooksPort;
type Services = EndpointAccessPorts;

/** The endpoint with its entity tag (`ETag`, the `If-Match` of an update). */
export interface TaggedEndpoint {
  resource: WebhookEndpointResource;
  entityTag: string;
}

export const notFound = (endpointId: string) =>
  new ApiError(ErrorCode.NOT_FOUND, 'No webhook endpoint with this id exists in the calling key’s team.', [
    { field: 'endpoint_id', issue: `not found: ${endpointId}` },
  ]);

export const tagged = (item: WebhookEndpointItem): TaggedEndpoint => ({ resource: endpointResource(item), entityTag: entityTagOf(item) });

/** An endpoint of the caller's team, or 404 (another team's endpoint is reported exactly like a missing one). */
export async function ownEndpoint(services: Services, caller: VerifiedKey, endpointId: string): Promise<WebhookEndpointItem> {
  const endpoint = await services.webhooks.getEndpoint(endpointId);
  if (!endpoint || endpoint.team_id !== caller.team_id) throw notFound(endpointId);
  return endpoint;
}

/** The audit record of an endpoint action. */
export function endpointAudit(
  type: WebhookEndpointEvent['event_type'],
  endpoint: Pick<WebhookEndpointItem, 'id' | 'team_id' | 'url' | 'events' | 'is_active'>,
  actor: WebhookEndpointEvent['actor'],
  at: Date,
  detail: { changed_fields?: string[]; reason?: string | null } = {},
) {
  return auditItem({
    event_type: type,
    occurred_at: at.toISOString(),
    endpoint_id: endpoint.id,
    team_id: endpoint.team_id,
    actor,
    endpoint: { url: endpoint.url, events: endpoint.events, is_active: endpoint.is_active },
    changed_fields: detail.changed_fields ?? [],
    reason: detail.reason ?? null,
  });
}
