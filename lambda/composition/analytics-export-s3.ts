/**
 * The rollup function's export adapter (docs/analytics.md): its hours as
 * Parquet to the stack's analytics bucket. Only the rollup handler imports
 * this module, so no other bundle, and no test that loads another handler,
 * loads the S3 client or the Parquet writer.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { s3AnalyticsExport } from '../adapters/analytics-export';
import type { AnalyticsExport } from '../domain/analytics-export';
import { optionalSetting } from '../platform/environment';
import type { Adapters } from './wiring';

/** The stack's analytics bucket (`ANALYTICS_BUCKET_NAME`); unset: hours are rolled up but not exported. */
function analyticsExportOfEnvironment(): AnalyticsExport | undefined {
  const bucket = optionalSetting('ANALYTICS_BUCKET_NAME');
  return bucket === undefined ? undefined : s3AnalyticsExport(new S3Client({}), bucket);
}

export const ANALYTICS_EXPORT_ADAPTERS: Adapters = {
  analyticsExport: process.env.PORT_ANALYTICS_EXPORT_BUNDLE === 'absent' ? undefined : analyticsExportOfEnvironment,
};
