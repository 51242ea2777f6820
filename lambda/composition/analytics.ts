/**
 * The verification analytics' rollup outside a Lambda function: the local
 * runtime's timer and `npm run analytics -- --refresh` (docs/analytics.md)
 * export to a folder, as the rollup function exports to the stack's bucket.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { folderAnalyticsExport } from '../adapters/analytics-export';
import type { AnalyticsExport } from '../domain/analytics-export';
import { systemClock } from '../platform/clock';
import { VerificationAnalytics } from '../store/verification-analytics';
import type { RollupPorts } from '../use-cases/analytics-rollup';
import { tablesOf } from './wiring';

/** The folder export of `directory` (`<directory>/verifications/day=…/….parquet`). */
export function folderExport(directory: string): AnalyticsExport {
  return folderAnalyticsExport(directory);
}

/** What the rollup needs, on `db`'s key table, exporting to `directory`. */
export function folderRollupPorts(db: DynamoDBDocumentClient, keyTableName: string, directory: string): RollupPorts {
  return {
    analytics: new VerificationAnalytics(tablesOf(db, { keyTableName, auditTableName: '' })),
    analyticsExport: folderAnalyticsExport(directory),
    clock: systemClock,
  };
}
