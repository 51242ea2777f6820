/**
 * A minute record of verification analytics (docs/analytics.md): what one
 * process counted of one team in one minute, `VA#<team>` /
 * `M#<minute>#<batch id>#<part>` (times in epoch ms, 13 digits, so sort keys
 * sort by time), written once under its batch's id (a retried write writes
 * the same item), kept 48 hours. The team's analytics items, together:
 *
 * | item            | pk            | sk                                   | kept   |
 * |-----------------|---------------|--------------------------------------|--------|
 * | minute record   | `VA#<team>`   | `M#<minute>#<batch id>#<part>`       | 48 h   |
 * | hour rollup     | `VA#<team>`   | `H#<hour>` (verification-rollup.ts)  | 92 d   |
 * | day rollup      | `VA#<team>`   | `D#<day>`                            | 802 d  |
 * | hour to roll up | `VADIRTY`     | `<hour>#<team>` (dirty-hour.ts)      | 3 d    |
 */
import { COUNTS, NUMBER, STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';

/** An epoch-ms time as 13 digits (the analytics items' sort keys sort by time). */
export const time = (ms: number) => String(ms).padStart(13, '0');
/** A team's analytics partition. */
export const analyticsPartition = (teamId: string) => `VA#${teamId}`;

const MINUTE_ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['verification-minute'], team_id: STRING, at: NUMBER, c: COUNTS, ttl: NUMBER } as const;
export type VerificationMinuteItem = ItemOf<typeof MINUTE_ATTRIBUTES>;

export const VERIFICATION_MINUTE = /* @__PURE__ */ defineEntity<VerificationMinuteItem>()({
  name: 'verification minute record',
  table: 'key',
  key: (teamId: string, minute: number, batchId: string, part: number) => ({ pk: analyticsPartition(teamId), sk: `M#${time(minute)}#${batchId}#${part}` }),
  attributes: MINUTE_ATTRIBUTES,
});

/** The sort-key bounds of a team's minute records from `from` to `to` (epoch ms, both included). */
export function minuteRange(teamId: string, from: number, to: number): { pk: string; low: string; high: string } {
  return { pk: analyticsPartition(teamId), low: `M#${time(from)}`, high: `M#${time(to)}#~` };
}

/** The access patterns on minute records: written by a process's batch, read by the route and the rollup. */
export const VERIFICATION_MINUTE_ACCESS = {
  countVerifications: ['UpdateItem'],
  readVerificationCounts: ['Query'],
  rollUpVerificationCounts: ['Query'],
} as const satisfies EntityAccess;
