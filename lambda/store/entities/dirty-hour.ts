/**
 * An hour of a team's verification analytics to roll up (docs/analytics.md),
 * `VADIRTY` / `<hour>#<team>`: marked (`v` added to) by a process after it
 * wrote minute records of that hour (once per process while the hour runs,
 * and again for a record written once the hour has ended); removed by the
 * rollup only when `v` is still what it read. Kept 3 days.
 */
import { NUMBER, STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';
import { time } from './verification-minute';

const DIRTY_ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['verification-dirty-hour'], team_id: STRING, at: NUMBER, v: NUMBER, ttl: NUMBER } as const;
export type DirtyHourItem = ItemOf<typeof DIRTY_ATTRIBUTES>;

export const DIRTY_HOURS_PARTITION = 'VADIRTY';

export const DIRTY_HOUR = /* @__PURE__ */ defineEntity<DirtyHourItem>()({
  name: 'hour to roll up',
  table: 'key',
  key: (teamId: string, hour: number) => ({ pk: DIRTY_HOURS_PARTITION, sk: `${time(hour)}#${teamId}` }),
  attributes: DIRTY_ATTRIBUTES,
});

/** The sort key below which every marked hour starts before `before` (epoch ms). */
export const dirtyBefore = (before: number) => time(before);

/** The access patterns on marked hours: marked by a process's batch, listed and removed by the rollup. */
export const DIRTY_HOUR_ACCESS = {
  countVerifications: ['UpdateItem'],
  rollUpVerificationCounts: ['Query', 'DeleteItem'],
} as const satisfies EntityAccess;
