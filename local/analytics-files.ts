/** Where the local runtime exports the verification analytics' hours (docs/analytics.md): `<DATA_DIR>/analytics/verifications/day=…/….parquet`. */
import path from 'node:path';

export function analyticsDir(dataDir: string): string {
  return path.join(dataDir, 'analytics');
}
