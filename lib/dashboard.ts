import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { MetricDimension, MetricName } from '../lambda/contract/metrics';
import type { WatchedResources } from './alarms';
import { searchMetric, serviceMetric, type ObservabilitySettings } from './observability';

export interface DashboardProps extends WatchedResources {
  readonly dashboardName: string;
  readonly settings: ObservabilitySettings;
  readonly archiver: lambda.IFunction;
}

const PERIOD = Duration.minutes(5);

/** A half-width graph of the dashboard. */
function graph(title: string, props: Omit<cloudwatch.GraphWidgetProps, 'title'>): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, width: WIDE, height: HEIGHT, ...props });
}
/** A service metric's sum over the period, labelled. */
const sumOf = (settings: ObservabilitySettings, name: MetricName, label: string) =>
  serviceMetric(settings, name, { statistic: cloudwatch.Stats.SUM, period: PERIOD, label });
/** A function's series label. */
const fnLabel = (name: string, what: string) => `${name} ${what}`;

const WIDE = 12;
const HEIGHT = 6;

/**
 * One CloudWatch dashboard for an operator (docs/operations.md): traffic and
 * outcomes first (verifications by code, management calls by status class,
 * rate limits), then latency, errors and throttles, then the asynchronous
 * parts (dead-letter queues, archive lag, the revocation schedules).
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    // One row each, in this order.
    for (const row of [trafficWidgets, loadWidgets, tableWidgets, latencyWidgets, failureWidgets, pipelineWidgets]) this.dashboard.addWidgets(...row(props));
  }
}

/** Verifications by code; management calls by route and status class. */
function trafficWidgets(props: DashboardProps): cloudwatch.IWidget[] {
  const { settings } = props;
  return [
    graph('Verifications by code', {
      left: [searchMetric(settings, MetricName.Verifications, [MetricDimension.code], { statistic: 'Sum', label: '' })],
    }),
    graph('Management calls by route and status class', {
      left: [searchMetric(settings, MetricName.ManagementCalls, [MetricDimension.route, MetricDimension.statusClass], { statistic: 'Sum', label: '' })],
    }),
  ];
}

/** What was refused for load (rate limits, the guess limiter, throttles); API requests and errors. */
function loadWidgets(props: DashboardProps): cloudwatch.IWidget[] {
  const { settings } = props;
  return [
    graph('Refused for load: rate limits, guess limiter, throttles', {
      left: [
        sumOf(settings, MetricName.RateLimited, 'Key over its rate_limit'),
        sumOf(settings, MetricName.GuessLimiterTrips, 'Guess limiter trips'),
        sumOf(settings, MetricName.Throttled, 'DynamoDB throttled (after retries)'),
        ...Object.entries(props.functions).map(([name, fn]) =>
          fn.metricThrottles({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: fnLabel(name, 'Lambda throttles') }),
        ),
      ],
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    }),
    graph('API requests and errors', {
      left: [props.api.deploymentStage.metricCount({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: 'Requests' })],
      right: [
        props.api.deploymentStage.metricClientError({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: '4XX' }),
        props.api.deploymentStage.metricServerError({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: '5XX' }),
      ],
    }),
  ];
}

/** One graph per table: each sum is a math expression over the same operation ids. */
function tableWidgets(props: DashboardProps): cloudwatch.IWidget[] {
  return [
    ...props.tables.map(({ name, table, operations }) =>
      graph(`${name}: throttled requests (${operations.join(', ')})`, {
        left: [table.metricThrottledRequestsForOperations({ operations: [...operations], period: PERIOD, label: 'Throttled requests' })],
      }),
    ),
  ];
}

/** Latency p50 and p99 per function. */
function latencyWidgets(props: DashboardProps): cloudwatch.IWidget[] {
  return [
    graph('Latency p50 per function (ms)', {
      left: Object.entries(props.functions).map(([name, fn]) =>
        fn.metricDuration({ statistic: cloudwatch.Stats.p(50), period: PERIOD, label: fnLabel(name, 'p50') }),
      ),
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    }),
    graph('Latency p99 per function (ms)', {
      left: Object.entries(props.functions).map(([name, fn]) =>
        fn.metricDuration({ statistic: cloudwatch.Stats.p(99), period: PERIOD, label: fnLabel(name, 'p99') }),
      ),
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    }),
  ];
}

/** Function errors; dead-letter queue depth. */
function failureWidgets(props: DashboardProps): cloudwatch.IWidget[] {
  return [
    graph('Function errors', {
      left: Object.entries(props.functions).map(([name, fn]) =>
        fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: fnLabel(name, 'errors') }),
      ),
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    }),
    graph('Dead-letter queue depth', {
      left: Object.entries(props.deadLetterQueues).map(([name, queue]) =>
        queue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: PERIOD, label: name }),
      ),
    }),
  ];
}

/** The audit archive lag; the revocation schedules. */
function pipelineWidgets(props: DashboardProps): cloudwatch.IWidget[] {
  const { settings } = props;
  return [
    graph('Audit archive lag (s)', {
      left: [
        serviceMetric(settings, MetricName.ArchiveLagSeconds, {
          statistic: cloudwatch.Stats.MAXIMUM,
          period: PERIOD,
          label: 'Oldest record of a batch, write → archive (s)',
        }),
      ],
      right: [props.archiver.metric('IteratorAge', { statistic: cloudwatch.Stats.MAXIMUM, period: PERIOD, label: 'Stream iterator age (ms)' })],
    }),
    graph('Revocation schedules', {
      left: [
        sumOf(settings, MetricName.RevocationsDone, 'Old values revoked'),
        sumOf(settings, MetricName.RevocationsLate, 'Revoked more than 60 s late'),
        props.scheduleGroup.metricAttempts({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: 'Scheduler invocation attempts' }),
        props.scheduleGroup.metricTargetErrors({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: 'Scheduler target errors' }),
        props.scheduleGroup.metricSentToDLQ({ statistic: cloudwatch.Stats.SUM, period: PERIOD, label: 'Sent to the dead-letter queue' }),
      ],
    }),
  ];
}
