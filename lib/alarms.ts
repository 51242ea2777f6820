import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName, REVOCATION_LATE_AFTER_SECONDS } from '../lambda/contract/metrics';
import { serviceMetric, type ObservabilitySettings } from './observability';

/** What the alarms and the dashboard watch (lib/dashboard.ts). */
export interface WatchedResources {
  /** The API whose stage 5xx rate is watched. Required. */
  readonly api: apigateway.RestApi;
  /** Functions whose throttles are watched, by a short name used in alarm descriptions. Required. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** Tables whose throttled requests are watched, with the operations the service performs on them. Required. */
  readonly tables: ReadonlyArray<{ readonly name: string; readonly table: dynamodb.ITable; readonly operations: readonly dynamodb.Operation[] }>;
  /** Dead-letter queues whose depth is watched, by a short name. Required. */
  readonly deadLetterQueues: Readonly<Record<string, sqs.IQueue>>;
  /** Schedule group whose target throttling is watched. Required. */
  readonly scheduleGroup: scheduler.IScheduleGroup;
}

export interface AlarmsProps extends WatchedResources {
  /** Stream consumer whose iterator age is watched. Required. */
  readonly streamConsumer: lambda.IFunction;
  /** The functions' custom metrics (namespace and service). Required. */
  readonly observability: ObservabilitySettings;
  /** Share of requests answered with 5xx, over 5 minutes, that raises the alarm. Default: 0.05 (5 %). */
  readonly serverErrorRateThreshold?: number;
  /** SNS topic every alarm notifies. Default: none (alarms only change state). */
  readonly alarmTopicArn?: string;
  /** Alarms made elsewhere that notify the same topic (the webhook backlog). Default: none. */
  readonly otherAlarms?: readonly cloudwatch.Alarm[];
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * The alarms an operator needs: the API's 5xx rate, throttling anywhere
 * (Lambda, DynamoDB, the scheduler's target), any message in a dead-letter
 * queue, and an archiver falling behind its stream (records leave a DynamoDB
 * stream after 24 hours, so a stuck archiver loses audit records).
 */
export class Alarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);

    // 5XXError is 0 or 1 per request, so its average is the error rate.
    this.add('Api5xxRate', {
      metric: props.api.deploymentStage.metricServerError({ statistic: cloudwatch.Stats.AVERAGE, period: FIVE_MINUTES }),
      threshold: props.serverErrorRateThreshold ?? 0.05,
      description: 'API 5xx responses exceed the threshold share of requests over 5 minutes',
    });

    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}Throttles`, {
        metric: fn.metricThrottles({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
        threshold: 1,
        description: `Lambda throttled invocations of ${name}`,
      });
    }

    for (const { name, table, operations } of props.tables) {
      this.add(`${name}Throttles`, {
        metric: table.metricThrottledRequestsForOperations({ operations: [...operations], period: FIVE_MINUTES }),
        threshold: 1,
        description: `DynamoDB throttled requests on the ${name} table`,
      });
    }

    this.add('SchedulerTargetThrottled', {
      metric: props.scheduleGroup.metricTargetThrottled({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
      threshold: 1,
      description: 'EventBridge Scheduler was throttled invoking the expire function',
    });

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.add(`${name}Depth`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: FIVE_MINUTES }),
        threshold: 1,
        description: `Messages waiting in the ${name} dead-letter queue`,
      });
    }

    this.add('ArchiverIteratorAge', {
      metric: props.streamConsumer.metric('IteratorAge', { statistic: cloudwatch.Stats.MAXIMUM, period: FIVE_MINUTES }),
      threshold: Duration.hours(1).toMilliseconds(),
      description: 'The audit archiver is more than an hour behind the audit stream (records expire after 24 hours)',
    });

    // From the functions' own metrics (EMF, lambda/contract/metrics.ts).
    this.add('StorageThrottled', {
      metric: serviceMetric(props.observability, MetricName.Throttled, { statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
      threshold: 1,
      description: 'A request failed because DynamoDB still throttled after the SDK retries (answered 503)',
    });
    this.add('RevocationsLate', {
      metric: serviceMetric(props.observability, MetricName.RevocationsLate, { statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
      threshold: 1,
      description: `An old key value was revoked more than ${REVOCATION_LATE_AFTER_SECONDS} s after its grace period ended (authentication already refused it by the clock)`,
    });
    this.add('ArchiveLag', {
      metric: serviceMetric(props.observability, MetricName.ArchiveLagSeconds, { statistic: cloudwatch.Stats.MAXIMUM, period: FIVE_MINUTES }),
      threshold: Duration.minutes(15).toSeconds(),
      description: 'An audit event reached the archive more than 15 minutes after it was written',
    });

    if (props.alarmTopicArn !== undefined) {
      const topic = sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn);
      for (const alarm of [...this.alarms, ...(props.otherAlarms ?? [])]) alarm.addAlarmAction(new actions.SnsAction(topic));
    }
  }

  private add(id: string, options: { metric: cloudwatch.IMetric; threshold: number; description: string }): void {
    this.alarms.push(
      new cloudwatch.Alarm(this, id, {
        metric: options.metric,
        threshold: options.threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: options.description,
      }),
    );
  }
}
