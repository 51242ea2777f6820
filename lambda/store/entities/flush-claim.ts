/**
 * A flush claim: one item per platform stage, `FLUSH#<restApiId>:<stage>` /
 * `FLUSH`, holding when the next flush of its authorizer cache may start
 * (epoch ms); claimed by a conditional write, so a stage is flushed at most
 * once per interval whatever the concurrency.
 */
import { NUMBER, defineEntity, type EntityAccess, type ItemOf, STRING } from './entity';

const ATTRIBUTES = { pk: STRING, sk: STRING, next_at: NUMBER } as const;

/** A flush claim item, as its attributes declare it. */
export type FlushClaimItem = ItemOf<typeof ATTRIBUTES>;

export const FLUSH_CLAIM = /* @__PURE__ */ defineEntity<FlushClaimItem>()({
  name: 'flush claim',
  table: 'key',
  key: (stage: string) => ({ pk: `FLUSH#${stage}`, sk: 'FLUSH' }),
  attributes: ATTRIBUTES,
});

/** The access patterns on flush claims. */
export const FLUSH_CLAIM_ACCESS = {
  claimCacheFlush: ['UpdateItem'],
} as const satisfies EntityAccess;
