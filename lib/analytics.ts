import { Aws, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as glue from 'aws-cdk-lib/aws-glue';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { runOnSchedule } from './scheduled-job';
import { ENV } from '../lambda/contract/function-environment';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { EXPORT_TABLE_PREFIX } from '../lambda/contract/analytics-export';
import { grantStoreOperations, HouseFunction, type FunctionBuild } from './house-function';
import { acknowledgeWildcardResource } from './nag';
import { privateBucket } from './private-bucket';
import * as iam from 'aws-cdk-lib/aws-iam';
import { removalPolicyFor } from './removal-policy';

export interface AnalyticsProps {
  /** How its function is bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  readonly keyTable: dynamodb.ITable;
  readonly auditTable: dynamodb.ITable;
  /** Where the export bucket's access logs go (the audit archive's access-log bucket). */
  readonly accessLogBucket: s3.IBucket;
  readonly logRetention?: logs.RetentionDays;
  readonly production?: boolean;
}

/** The export's columns, as docs/analytics.md lists them (the Parquet files' own, lambda/adapters/analytics-export.ts). */
export const ANALYTICS_COLUMNS: glue.CfnTable.ColumnProperty[] = [
  { name: 'start', type: 'timestamp' },
  { name: 'team_id', type: 'string' },
  { name: 'key_id', type: 'string' },
  { name: 'identity_id', type: 'string' },
  { name: 'scope', type: 'string' },
  { name: 'outcome', type: 'string' },
  { name: 'count', type: 'bigint' },
];

/** Day partitions from the first day the service could have counted (partition projection: Athena adds none by hand). */
const FIRST_DAY = '2026-01-01';
/** How long exported hours are kept: as long as the day rollups (800 days and a margin). */
const EXPORT_KEPT = Duration.days(802);

/**
 * Verification analytics (docs/analytics.md): the functions that verify
 * count in memory and write minute records; a rule runs the rollup function
 * every 5 minutes, which sums each marked hour into its hour and day
 * rollups and exports the hour as Parquet to this construct's bucket, which
 * a Glue table (partition projection on `day`) opens to Athena. A failed
 * run leaves the marks for the next one, so the rule does not retry.
 */
export class Analytics extends Construct {
  readonly rollup: HouseFunction;
  readonly bucket: s3.Bucket;
  readonly database: glue.CfnDatabase;
  readonly table: glue.CfnTable;

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id);
    const removal = removalPolicyFor(props.production);
    this.bucket = privateBucket(this, 'Bucket', {
      accessLogBucket: props.accessLogBucket,
      logPrefix: 'analytics/',
      lifecycleRules: [{ id: 'expire-exported-hours', expiration: EXPORT_KEPT, abortIncompleteMultipartUploadAfter: Duration.days(7) }],
      production: props.production,
    });
    this.rollup = new HouseFunction(this, 'Rollup', {
      build: props.build,
      handlerName: 'roll-up-analytics',
      description: 'Rolls up verification counts by hour and day, and exports each hour as Parquet (every 5 minutes)',
      timeout: Duration.minutes(2),
      logRetention: props.logRetention,
      logRemovalPolicy: removal,
      environment: { [ENV.KEY_TABLE_NAME]: props.keyTable.tableName, [ENV.ANALYTICS_BUCKET_NAME]: this.bucket.bucketName },
    });
    grantStoreOperations(this.rollup, 'roll-up-analytics', { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    // PutObject alone, under the table's folder: an hour's file is replaced whole when it is rolled up again.
    const exported = this.bucket.arnForObjects(`${EXPORT_TABLE_PREFIX}/*`);
    this.rollup.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [exported] }));
    acknowledgeWildcardResource(
      this.rollup,
      exported,
      'The rollup writes one Parquet file per team and hour, verifications/day=YYYY-MM-DD/<team id>-<HH>.parquet, so names are known only at run time; the grant is PutObject alone (no read or delete) under that prefix.',
    );
    runOnSchedule(this, 'Every5Minutes', this.rollup, {
      description: 'Rolls up and exports the verification analytics',
      every: Duration.minutes(5),
      nextRunCovers:
        'The rollup is idempotent and keeps its work in the table: a run that fails leaves the marked hours in place and the next scheduled run (5 minutes later) does them, so a failed invocation has nothing to park.',
    });
    [this.database, this.table] = this.glueTable();
    new CfnOutput(this, 'AnalyticsBucketName', {
      value: this.bucket.bucketName,
      description: 'Bucket of the verification analytics export (Parquet, docs/analytics.md)',
    });
    new CfnOutput(this, 'AnalyticsDatabaseName', {
      value: this.database.ref,
      description: 'Glue database of the `verifications` table (query it with Athena)',
    });
  }

  /** The Glue database and the `verifications` table over the export, days by partition projection. */
  private glueTable(): [glue.CfnDatabase, glue.CfnTable] {
    const databaseName = `${Stack.of(this)
      .stackName.toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')}_analytics`;
    const database = new glue.CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: databaseName, description: 'Verification analytics of the API key service (docs/analytics.md)' },
    });
    const location = `s3://${this.bucket.bucketName}/${EXPORT_TABLE_PREFIX}/`;
    const table = new glue.CfnTable(this, 'Verifications', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName,
      tableInput: {
        name: 'verifications',
        description: 'Verifications counted per hour by team, key, identity, scope and outcome',
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: [{ name: 'day', type: 'string' }],
        parameters: {
          classification: 'parquet',
          'projection.enabled': 'true',
          'projection.day.type': 'date',
          'projection.day.format': 'yyyy-MM-dd',
          'projection.day.range': `${FIRST_DAY},NOW`,
          'projection.day.interval': '1',
          'projection.day.interval.unit': 'DAYS',
          'storage.location.template': `${location}day=\${day}/`,
        },
        storageDescriptor: {
          columns: ANALYTICS_COLUMNS,
          location,
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
        },
      },
    });
    table.addResourceDependency(database);
    return [database, table];
  }
}
