import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ENV } from '../lambda/contract/function-environment';
import { DEFAULT_SERVICE_NAME, MetricDimension, type MetricName } from '../lambda/contract/metrics';
import type { HouseFunction } from './house-function';

/** What every function's Powertools reads (docs/operations.md). */
export interface ObservabilitySettings {
  /** The `service` of every log line and metric: `api-key-service-<stage>`, so two stages never mix. */
  readonly serviceName: string;
  readonly metricsNamespace: string;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly logSampleRate: number;
}

/** The settings of a stage. */
export function observabilitySettings(config: {
  stage: string;
  metricsNamespace: string;
  logLevel: ObservabilitySettings['logLevel'];
  logSampleRate: number;
}): ObservabilitySettings {
  return {
    serviceName: `${DEFAULT_SERVICE_NAME}-${config.stage}`,
    metricsNamespace: config.metricsNamespace,
    logLevel: config.logLevel,
    logSampleRate: config.logSampleRate,
  };
}

/** Sets the Powertools environment of each function. */
export function configureObservability(functions: readonly HouseFunction[], settings: ObservabilitySettings): void {
  for (const fn of functions) {
    fn.addEnvironment(ENV.POWERTOOLS_SERVICE_NAME, settings.serviceName);
    fn.addEnvironment(ENV.POWERTOOLS_METRICS_NAMESPACE, settings.metricsNamespace);
    fn.addEnvironment(ENV.POWERTOOLS_LOG_LEVEL, settings.logLevel);
    fn.addEnvironment(ENV.POWERTOOLS_LOGGER_SAMPLE_RATE, String(settings.logSampleRate));
  }
}

/**
 * Gives each function that hashes key values the pepper secret: its ARN in
 * `KEY_HASH_PEPPER_SECRET_ARN` and `secretsmanager:GetSecretValue` on it
 * (read once per cold start, lambda/adapters/pepper.ts).
 */
export function grantPepper(functions: readonly HouseFunction[], secretArn: string): void {
  for (const fn of functions) {
    fn.addEnvironment(ENV.KEY_HASH_PEPPER_SECRET_ARN, secretArn);
    // The ARN as given and with a suffix: a name that itself ends in a six-character part ("api-key-pepper") cannot be
    // told from a complete ARN, and IAM matches the complete one ("api-key-pepper-AbCdEf"). Harmless when it was complete.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], resources: [secretArn, `${secretArn}-??????`] }),
    );
  }
}

/** One of the service's custom metrics (lambda/contract/metrics.ts), for this stage's `service`. */
export function serviceMetric(
  settings: ObservabilitySettings,
  name: MetricName,
  options: { statistic: string; period?: Duration; dimensions?: Record<string, string>; label?: string },
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: settings.metricsNamespace,
    metricName: name,
    dimensionsMap: { [MetricDimension.service]: settings.serviceName, ...options.dimensions },
    statistic: options.statistic,
    period: options.period ?? Duration.minutes(5),
    label: options.label,
  });
}

/** Every series of `name` whatever its other dimensions' values (a dashboard SEARCH; alarms cannot use it). */
export function searchMetric(
  settings: ObservabilitySettings,
  name: MetricName,
  dimensions: readonly string[],
  options: { statistic: string; label: string; period?: Duration },
): cloudwatch.MathExpression {
  const schema = [settings.metricsNamespace, MetricDimension.service, ...dimensions].map((part) => `"${part}"`).join(',');
  const period = (options.period ?? Duration.minutes(5)).toSeconds();
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${name}" ${MetricDimension.service}="${settings.serviceName}"', '${options.statistic}', ${period})`,
    usingMetrics: {},
    label: options.label,
    period: options.period ?? Duration.minutes(5),
  });
}
