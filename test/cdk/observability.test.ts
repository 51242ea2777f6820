/**
 * The stack's operations wiring, synthesized once with a pepper secret and
 * non-default observability context: Powertools settings on every function,
 * Lambda's log levels, the dashboard, the alarms on the functions' own
 * metrics, and the pepper secret given to exactly the functions that hash
 * key values.
 */
import { ENV } from '../../lambda/contract/env-names';
import { MetricName } from '../../lambda/contract/metrics';
import { functionsByHandler, HANDLER_NAMES, logicalIdOf, resourcesOf, statementsOfFunction, synthesizeService, type SynthesizedService } from './service';

const PEPPER_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-key-pepper-AbCdEf';
/** The functions that never hash a key value: no pepper for them. */
const NOT_HASHING = ['expire-old-value', 'archive-audit'];

let service: SynthesizedService;
let functionIds: Record<string, string>;

beforeAll(() => {
  service = synthesizeService({ stage: 'qa', keyHashPepperSecretArn: PEPPER_ARN, metricsNamespace: 'Platform/Keys', logLevel: 'WARN', logSampleRate: '0.05' });
  functionIds = Object.fromEntries(Object.entries(functionsByHandler(service.stack)).map(([name, fn]) => [name, logicalIdOf(fn)]));
});

interface FunctionProperties {
  Environment?: { Variables?: Record<string, string> };
  LoggingConfig?: Record<string, string>;
}
const functionResource = (name: string) => resourcesOf(service.template, 'AWS::Lambda::Function')[functionIds[name]] as { Properties?: FunctionProperties } | undefined;

describe('logs and metrics settings', () => {
  it('every function gets the Powertools service, namespace, level and sample rate from context, and Lambda keeps START/REPORT lines', () => {
    for (const name of HANDLER_NAMES) {
      const properties = functionResource(name)?.Properties;
      expect({ name, environment: properties?.Environment?.Variables, logging: properties?.LoggingConfig }).toMatchObject({
        name,
        environment: {
          [ENV.POWERTOOLS_SERVICE_NAME]: 'api-key-service-qa',
          [ENV.POWERTOOLS_METRICS_NAMESPACE]: 'Platform/Keys',
          [ENV.POWERTOOLS_LOG_LEVEL]: 'WARN',
          [ENV.POWERTOOLS_LOGGER_SAMPLE_RATE]: '0.05',
        },
        logging: { LogFormat: 'JSON', SystemLogLevel: 'INFO', ApplicationLogLevel: 'DEBUG' },
      });
    }
  });
});

describe('pepper secret', () => {
  it('every function that hashes values gets the secret ARN and may read exactly that secret; expire and archive get neither', () => {
    for (const name of HANDLER_NAMES) {
      const variables = functionResource(name)?.Properties?.Environment?.Variables ?? {};
      const secretStatements = statementsOfFunction(service.template, functionIds[name]).filter((statement) =>
        JSON.stringify(statement.Action).includes('secretsmanager:'),
      );
      if (NOT_HASHING.includes(name)) {
        expect({ name, arn: variables[ENV.KEY_HASH_PEPPER_SECRET_ARN], secretStatements }).toEqual({ name, arn: undefined, secretStatements: [] });
        continue;
      }
      expect({ name, arn: variables[ENV.KEY_HASH_PEPPER_SECRET_ARN] }).toEqual({ name, arn: PEPPER_ARN });
      expect({ name, resources: secretStatements.map((statement) => statement.Resource) }).toEqual({ name, resources: [PEPPER_ARN] });
      expect(secretStatements[0].Action).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue']));
    }
  });

  it('the stack outputs the secret ARN for bootstrap --aws', () => {
    expect(service.template.toJSON().Outputs.KeyHashPepperSecretArn.Value).toBe(PEPPER_ARN);
  });
});

describe('dashboard', () => {
  it('one dashboard shows verifications by code, latency p50/p99 per function, throttles, errors, DLQ depths, archive lag and the revocation schedules', () => {
    const dashboards = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0].Properties?.DashboardBody);
    for (const title of [
      'Verifications by code',
      'Management calls by route and status class',
      'Refused for load: rate limits, guess limiter, throttles',
      'KeyTable: throttled requests',
      'AuditTable: throttled requests',
      'Latency p50 per function (ms)',
      'Latency p99 per function (ms)',
      'Function errors',
      'Dead-letter queue depth',
      'Audit archive lag (s)',
      'Revocation schedules',
    ]) {
      expect(body).toContain(title);
    }
    expect(body).toContain(`MetricName=\\\\\\"${MetricName.Verifications}\\\\\\" service=\\\\\\"api-key-service-qa\\\\\\"`);
    expect(body).toContain('Platform/Keys');
    for (const id of Object.values(functionIds)) expect(body).toContain(id);
    expect((body.match(/\\"stat\\":\\"p99\\"/g) ?? []).length).toBe(HANDLER_NAMES.length);
    expect((body.match(/\\"stat\\":\\"p50\\"/g) ?? []).length).toBe(HANDLER_NAMES.length);
  });
});

describe('alarms on the functions\' own metrics', () => {
  it.each([
    [MetricName.Throttled, 'Sum', 1],
    [MetricName.RevocationsLate, 'Sum', 1],
    [MetricName.ArchiveLagSeconds, 'Maximum', 900],
  ])('%s is alarmed (%s ≥ %d) in the configured namespace for this stage\'s service', (metricName, statistic, threshold) => {
    const alarms = Object.values(resourcesOf(service.template, 'AWS::CloudWatch::Alarm')).filter((alarm) => alarm.Properties?.MetricName === metricName);
    expect(alarms).toHaveLength(1);
    expect(alarms[0].Properties).toMatchObject({
      Namespace: 'Platform/Keys',
      Statistic: statistic,
      Threshold: threshold,
      Dimensions: [{ Name: 'service', Value: 'api-key-service-qa' }],
    });
  });
});
