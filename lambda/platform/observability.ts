/**
 * Logs, metrics and traces: Powertools for AWS Lambda (TypeScript).
 *
 * - Logger: one JSON object per line with `level`, `message`, `timestamp`,
 *   `service`, the Lambda context (`function_name`, `function_request_id`,
 *   `cold_start`, …) and `correlation_id` (the API request id). Level from
 *   `POWERTOOLS_LOG_LEVEL`, DEBUG sampling from `POWERTOOLS_LOGGER_SAMPLE_RATE`.
 *   Every line goes through `redactingReplacer`: a key value, a hash, a
 *   Bearer credential or a secret-named field cannot be written, whoever
 *   passes it.
 * - Metrics: CloudWatch Embedded Metric Format, names in contract/metrics.ts,
 *   namespace `POWERTOOLS_METRICS_NAMESPACE`, flushed after every invocation.
 * - Tracer: X-Ray, only where Lambda runs it (platform/tracing.ts).
 *
 * The local runtime passes its own `Observability` (terminal output); tests
 * pass one that writes into memory.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions as LoggerOptions } from '@aws-lambda-powertools/logger/types';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_SERVICE_NAME, MetricDimension, MetricName } from '../contract/metrics';
import { redactingReplacer } from './redaction';
import { optionalSetting } from './environment';

export interface Observability {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Absent outside Lambda. */
  readonly tracer?: Tracer;
}

/** Logger options every logger of the service uses, whatever prints its lines. */
export function houseLoggerOptions(options: LoggerOptions = {}): LoggerOptions {
  return {
    serviceName: optionalSetting('POWERTOOLS_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
    jsonReplacerFn: redactingReplacer as LoggerOptions['jsonReplacerFn'],
    ...options,
  };
}

/** The metrics options every metrics instance of the service uses. */
export function houseMetricsOptions(): ConstructorParameters<typeof Metrics>[0] {
  return {
    namespace: optionalSetting('POWERTOOLS_METRICS_NAMESPACE') ?? DEFAULT_METRICS_NAMESPACE,
    serviceName: optionalSetting('POWERTOOLS_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
  };
}

/** Logger and metrics configured from the environment (Lambda). */
export function environmentObservability(tracer?: Tracer, loggerOptions: LoggerOptions = {}): Observability {
  return { logger: new Logger(houseLoggerOptions(loggerOptions)), metrics: new Metrics(houseMetricsOptions()), tracer };
}

/** An unexpected error as a log attribute: Powertools prints name, location, message and stack. */
export function errorField(error: unknown): { error: Error | string } {
  return { error: error instanceof Error ? error : String(error) };
}

/** Whether an AWS SDK error is DynamoDB refusing for capacity. */
export function isThrottlingError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return (
    name === 'ProvisionedThroughputExceededException' ||
    name === 'ThrottlingException' ||
    name === 'RequestLimitExceeded' ||
    (name === 'TransactionCanceledException' &&
      Array.isArray((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons) &&
      (error as { CancellationReasons: { Code?: string }[] }).CancellationReasons.some((reason) => reason.Code === 'ThrottlingError'))
  );
}

/** A status code's class, the `status_class` dimension: `2xx`, `4xx`, `5xx`. */
export function statusClassOf(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * The service's signals, as business events. The first metric of an
 * invocation that carries dimensions is stored on `metrics` (flushed after
 * the invocation); metrics counted on the side go out as single metrics
 * with the `service` dimension only, so each alarm reads one series.
 */
export const signals = {
  verification(o: Observability, code: string): void {
    o.metrics.addDimension(MetricDimension.code, code);
    o.metrics.addMetric(MetricName.Verifications, MetricUnit.Count, 1);
    if (code === 'RATE_LIMITED') signals.rateLimited(o);
  },
  managementAuthorization(o: Observability, code: string): void {
    o.metrics.addDimension(MetricDimension.code, code);
    o.metrics.addMetric(MetricName.ManagementAuthorizations, MetricUnit.Count, 1);
  },
  managementCall(o: Observability, route: string, status: number): void {
    o.metrics.addDimension(MetricDimension.route, route);
    o.metrics.addDimension(MetricDimension.statusClass, statusClassOf(status));
    o.metrics.addMetric(MetricName.ManagementCalls, MetricUnit.Count, 1);
  },
  rateLimited(o: Observability): void {
    o.metrics.singleMetric().addMetric(MetricName.RateLimited, MetricUnit.Count, 1);
  },
  throttled(o: Observability): void {
    o.metrics.singleMetric().addMetric(MetricName.Throttled, MetricUnit.Count, 1);
  },
  guessLimiterTrip(o: Observability): void {
    o.metrics.singleMetric().addMetric(MetricName.GuessLimiterTrips, MetricUnit.Count, 1);
  },
  archiveLag(o: Observability, seconds: number): void {
    o.metrics.addMetric(MetricName.ArchiveLagSeconds, MetricUnit.Seconds, Math.max(0, seconds));
  },
  revocation(o: Observability, late: boolean): void {
    o.metrics.addMetric(MetricName.RevocationsDone, MetricUnit.Count, 1);
    o.metrics.addMetric(MetricName.RevocationsLate, MetricUnit.Count, late ? 1 : 0);
  },
};
