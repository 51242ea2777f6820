/**
 * How many webhook endpoints a team has: `TEAM#<team_id>` / `WEBHOOKS`,
 * raised and lowered in the transactions that create and delete one, under
 * the cap of 10 (a condition on the count, never a read first).
 */
import { NUMBER, STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';

const ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['webhook-count'], team_id: STRING, endpoints: NUMBER } as const;

/** An endpoint count item, as its attributes declare it. */
export type EndpointCountItem = ItemOf<typeof ATTRIBUTES>;

export const ENDPOINT_COUNT = /* @__PURE__ */ defineEntity<EndpointCountItem>()({
  name: 'endpoint count',
  table: 'key',
  key: (teamId: string) => ({ pk: `TEAM#${teamId}`, sk: 'WEBHOOKS' }),
  attributes: ATTRIBUTES,
});

/** The `entity` attribute a count is written with. */
export const ENDPOINT_COUNT_ENTITY: EndpointCountItem['entity'] = 'webhook-count';

/** The access patterns on endpoint counts. */
export const ENDPOINT_COUNT_ACCESS = {
  createWebhookEndpoint: ['UpdateItem'],
  deleteWebhookEndpoint: ['UpdateItem'],
} as const satisfies EntityAccess;
