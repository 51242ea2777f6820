import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../lambda/contract/function-environment';
import { TEAM_INDEX } from '../lambda/contract/tables';
import { grantStoreOperations, HouseFunction, type FunctionBuild } from './house-function';
import { acknowledge, cfnOf } from './nag';

export interface AnalyticsProps {
  /** How its function is bundled (lib/house-function.ts `functionBuildOf`). Required. */
  readonly build: FunctionBuild;
  readonly keyTable: dynamodb.ITable;
  readonly auditTable: dynamodb.ITable;
  readonly logRetention?: logs.RetentionDays;
  readonly production?: boolean;
}

/**
 * Verification analytics (docs/analytics.md): the functions that verify
 * count in memory and write minute records; this rule runs the rollup
 * function every 5 minutes, which sums each marked hour into its hour and
 * day rollups. A failed run leaves the marks for the next one, so the rule
 * does not retry.
 */
export class Analytics extends Construct {
  readonly rollup: HouseFunction;

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id);
    this.rollup = new HouseFunction(this, 'Rollup', {
      build: props.build,
      handlerName: 'roll-up-analytics',
      description: 'Rolls up verification counts by hour and day (every 5 minutes)',
      timeout: Duration.minutes(2),
      logRetention: props.logRetention,
      logRemovalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      environment: { [ENV.KEY_TABLE_NAME]: props.keyTable.tableName },
    });
    grantStoreOperations(this.rollup, 'roll-up-analytics', { keyTable: props.keyTable, auditTable: props.auditTable, teamIndexName: TEAM_INDEX });
    const rule = new events.Rule(this, 'Every5Minutes', {
      description: 'Rolls up the verification analytics',
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new targets.LambdaFunction(this.rollup, { retryAttempts: 0 })],
    });
    const idempotent =
      'The rollup is idempotent and keeps its work in the table: a run that fails leaves the marked hours in place and the next scheduled run (5 minutes later) does them, so a failed invocation has nothing to park.';
    acknowledge(cfnOf(this.rollup), 'Serverless-LambdaDLQ', idempotent);
    acknowledge(cfnOf(rule), 'Serverless-EventBusDLQ', idempotent);
  }
}
