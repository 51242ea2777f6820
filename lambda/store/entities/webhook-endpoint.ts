/**
 * A webhook endpoint: `WEBHOOK#<id>` / `WEBHOOK`, its URL, event filter and
 * sealed signing secret(s), on the team index as `WEBHOOKS#<team>` /
 * `WEBHOOK#<id>` (a partition of its own, apart from the team's keys).
 */
import type { WebhookEndpointItem } from '../../domain/webhook-endpoints';
import {
  ANY_ID,
  BOOLEAN,
  NUMBER,
  OPTIONAL_STRING,
  STRING,
  STRING_OR_NULL,
  STRINGS,
  defineEntity,
  positionOf,
  type EntityAccess,
  type IndexKey,
} from './entity';

export const WEBHOOK_ENDPOINT = /* @__PURE__ */ defineEntity<WebhookEndpointItem>()({
  name: 'webhook endpoint',
  table: 'key',
  key: (endpointId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: 'WEBHOOK' }),
  attributes: {
    pk: STRING,
    sk: STRING,
    entity: ['webhook'],
    id: STRING,
    team_id: STRING,
    url: STRING,
    description: STRING,
    events: STRINGS,
    is_active: BOOLEAN,
    created_at: STRING,
    updated_at: STRING,
    created_by: STRING,
    revision: NUMBER,
    failing_since: STRING_OR_NULL,
    disabled_reason: STRING_OR_NULL,
    secret: STRING,
    previous_secret: OPTIONAL_STRING,
    previous_secret_until: OPTIONAL_STRING,
    gsi1pk: STRING,
    gsi1sk: STRING,
  },
});

/** The team index's partition of a team's endpoints. */
export const teamEndpointsPartition = (teamId: string): string => `WEBHOOKS#${teamId}`;

/** An endpoint's place on the team index. */
export const endpointTeamIndex = (teamId: string, endpointId: string): IndexKey => ({
  gsi1pk: teamEndpointsPartition(teamId),
  gsi1sk: `WEBHOOK#${endpointId}`,
});

/** The last endpoint of a page of a team's endpoints (the endpoint list's cursor). */
export const teamEndpointsPage = (teamId: string) => positionOf({ ...WEBHOOK_ENDPOINT.key(ANY_ID), ...endpointTeamIndex(teamId, ANY_ID) });

/** The access patterns on endpoint items. */
export const WEBHOOK_ENDPOINT_ACCESS = {
  createWebhookEndpoint: ['PutItem'],
  readWebhookEndpoint: ['GetItem'],
  listWebhookEndpoints: ['Query byTeam'],
  changeWebhookEndpoint: ['UpdateItem'],
  deleteWebhookEndpoint: ['DeleteItem'],
  recordWebhookOutcome: ['UpdateItem'],
} as const satisfies EntityAccess;
