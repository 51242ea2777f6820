/**
 * The layout of the verification analytics' export (docs/analytics.md),
 * dependency-free: the CDK app (the Glue table's location and the rollup's
 * grant), the export adapters and the local command all read it. One
 * Parquet file per team and hour, partitioned by UTC day:
 * `verifications/day=<YYYY-MM-DD>/<team>-<HH>.parquet`.
 */

/** The table's folder under the export's root. */
export const EXPORT_TABLE_PREFIX = 'verifications';

/** The object key of a team's hour (epoch ms of its start). */
export function exportKeyOf(teamId: string, hour: number): string {
  const iso = new Date(hour).toISOString();
  return `${EXPORT_TABLE_PREFIX}/day=${iso.slice(0, 10)}/${teamId}-${iso.slice(11, 13)}.parquet`;
}
