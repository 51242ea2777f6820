/**
 * An hour's or a UTC day's verification counts of a team (docs/analytics.md),
 * `VA#<team>` / `H#<hour>` or `D#<day>`: the sum of the hour's minute
 * records, or of the day's hour rollups, recomputed whole by the rollup (so
 * recomputing it again writes the same item); hours kept 92 days, days 802.
 */
import { COUNTS, NUMBER, STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';
import { analyticsPartition, time } from './verification-minute';

const ROLLUP_ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['verification-rollup'], team_id: STRING, at: NUMBER, c: COUNTS, ttl: NUMBER } as const;
export type VerificationRollupItem = ItemOf<typeof ROLLUP_ATTRIBUTES>;

export type RollupSize = 'hour' | 'day';
const ROLLUP_PREFIX: Record<RollupSize, string> = { hour: 'H', day: 'D' };

export const VERIFICATION_ROLLUP = /* @__PURE__ */ defineEntity<VerificationRollupItem>()({
  name: 'verification rollup',
  table: 'key',
  key: (teamId: string, size: RollupSize, start: number) => ({ pk: analyticsPartition(teamId), sk: `${ROLLUP_PREFIX[size]}#${time(start)}` }),
  attributes: ROLLUP_ATTRIBUTES,
});

/** The sort-key bounds of a team's rollups of `size` starting from `from` to `to` (epoch ms, both included). */
export function rollupRange(teamId: string, size: RollupSize, from: number, to: number): { pk: string; low: string; high: string } {
  return { pk: analyticsPartition(teamId), low: `${ROLLUP_PREFIX[size]}#${time(from)}`, high: `${ROLLUP_PREFIX[size]}#${time(to)}` };
}

/** The access patterns on rollups: read by the route, recomputed by the rollup. */
export const VERIFICATION_ROLLUP_ACCESS = {
  readVerificationCounts: ['Query'],
  rollUpVerificationCounts: ['Query', 'PutItem'],
} as const satisfies EntityAccess;
