/**
 * The verification analytics' rollup (docs/analytics.md): marked hours
 * summed into their hour and day rollups, and each hour exported as Parquet
 * when the function has somewhere to export to. Run every 5 minutes (the
 * rollup function in AWS, a timer of `npm start`), and by
 * `npm run analytics -- --refresh` with the hours still running.
 */
import type { AnalyticsExportPort, AnalyticsPort, ClockPort } from '../store/ports';

export type RollupPorts = AnalyticsPort & AnalyticsExportPort & ClockPort;

export async function rollUpAnalytics(services: RollupPorts, options: { openHours?: boolean } = {}): Promise<{ hours: number; again: number }> {
  const exporter = services.analyticsExport;
  return services.analytics.rollUp(services.clock.now().getTime(), {
    ...options,
    ...(exporter ? { exported: (teamId, hour, counts) => exporter.putHour(teamId, hour, counts) } : {}),
  });
}
