/**
 * Where the verification analytics' hours are exported for SQL
 * (docs/analytics.md): one Parquet file per team and hour, with the columns
 * `start, team_id, key_id, identity_id, scope, outcome, count`, laid out as
 * contract/analytics-export.ts says. A file is replaced whole when its hour
 * is rolled up again (a late count). Adapters:
 * lambda/adapters/analytics-export.ts (S3 in AWS, a folder locally).
 */
export interface AnalyticsExport {
  /** For logs: `s3://bucket/verifications` or `file:///folder/verifications`. */
  readonly location: string;
  /** Writes, or replaces, the file of one team's hour (`counts` by entry name, domain/verification-tally.ts). */
  putHour(teamId: string, hour: number, counts: Readonly<Record<string, number>>): Promise<void>;
}
