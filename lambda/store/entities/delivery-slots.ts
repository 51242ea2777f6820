/**
 * An endpoint's delivery slots: `WEBHOOK#<id>` / `SLOTS`, one attribute per
 * attempt in flight (`slot<n>`: held until, epoch ms; at most
 * ENDPOINT_CONCURRENCY), claimed and given back by conditional writes;
 * removed by TTL a day after its last use.
 */
import { NUMBER, defineEntity, type EntityAccess, type ItemOf, STRING } from './entity';

const ATTRIBUTES = { pk: STRING, sk: STRING, ttl: NUMBER } as const;

/** A slots item, as its attributes declare it (each `slot<n>` a number). */
export type DeliverySlotsItem = ItemOf<typeof ATTRIBUTES>;

export const DELIVERY_SLOTS = /* @__PURE__ */ defineEntity<DeliverySlotsItem>()({
  name: 'delivery slots',
  table: 'key',
  key: (endpointId: string) => ({ pk: `WEBHOOK#${endpointId}`, sk: 'SLOTS' }),
  attributes: ATTRIBUTES,
  rest: { pattern: /^slot\d+$/, kind: NUMBER },
});

/** The access patterns on slots items. */
export const DELIVERY_SLOTS_ACCESS = {
  claimDeliverySlot: ['UpdateItem'],
} as const satisfies EntityAccess;
