/**
 * The typed reader of CDK context: defaults, values from the command line
 * (always strings), and bad values failing synthesis with a clear message.
 * No synthesis here.
 */
import { DEFAULT_PLAN_RATE_LIMIT } from '../../lambda/shared/config';
import { ARCHIVE_RETENTION_DAYS, AUDIT_RETENTION_DAYS } from '../../lambda/shared/retention';
import { CONTEXT_KEYS, DEFAULTS, readServiceConfig } from '../../lib/config';
import { cdkJsonContext } from './service';

function contextOf(values: Record<string, unknown>) {
  return { tryGetContext: (key: string): unknown => values[key] };
}

function problemsOf(values: Record<string, unknown>): string {
  try {
    readServiceConfig(contextOf(values));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`Expected ${JSON.stringify(values)} to be rejected`);
}

describe('service configuration from CDK context', () => {
  test('defaults: dev stage, plan limit from the shared config, two-year COMPLIANCE lock', () => {
    // Act
    const config = readServiceConfig(contextOf({}));

    // Assess
    expect(config).toEqual({ ...DEFAULTS, production: false });
    expect(config.planRateLimit).toBe(DEFAULT_PLAN_RATE_LIMIT);
    expect(config.archiveObjectLockMode).toBe('COMPLIANCE');
    expect(config.archiveObjectLockDays).toBe(ARCHIVE_RETENTION_DAYS);
  });

  test('cdk.json sets the stage and nothing that fails validation', () => {
    // Act
    const config = readServiceConfig(contextOf(cdkJsonContext()));

    // Assess
    expect(config.stage).toBe('dev');
  });

  test('values given with -c arrive as strings and are parsed', () => {
    // Act
    const config = readServiceConfig(
      contextOf({
        stage: 'staging',
        production: 'true',
        planRateLimit: '5000',
        apiRateLimit: '12.5',
        apiBurstLimit: '40',
        usagePlanQuota: '42',
        usagePlanQuotaPeriod: 'DAY',
        archiveObjectLockMode: 'GOVERNANCE',
        archiveObjectLockDays: '1095',
        logRetentionDays: '90',
        apiGatewayCloudWatchRole: 'false',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
      }),
    );

    // Assess
    expect(config).toMatchObject({
      stage: 'staging',
      production: true,
      planRateLimit: 5000,
      apiRateLimit: 12.5,
      apiBurstLimit: 40,
      usagePlanQuota: 42,
      usagePlanQuotaPeriod: 'DAY',
      archiveObjectLockMode: 'GOVERNANCE',
      archiveObjectLockDays: 1095,
      logRetentionDays: 90,
      apiGatewayCloudWatchRole: false,
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
    });
  });

  test.each(['prod', 'production'])('stage %s is production unless production=false says otherwise', (stage) => {
    expect(readServiceConfig(contextOf({ stage })).production).toBe(true);
    expect(readServiceConfig(contextOf({ stage, production: false })).production).toBe(false);
  });

  test('every problem is reported at once, naming the key, the value and what is allowed', () => {
    // Act
    const message = problemsOf({
      stage: 'Prod_1',
      planRateLimit: '0',
      apiBurstLimit: 'lots',
      usagePlanQuotaPeriod: 'YEAR',
      archiveObjectLockMode: 'compliance',
      logRetentionDays: 42,
      production: 'yes',
      alarmTopicArn: 'oncall',
    });

    // Assess
    expect(message).toContain('Invalid CDK context for the API key service');
    expect(message).toContain('stage must be lowercase letters, digits and hyphens');
    expect(message).toContain('"Prod_1"');
    expect(message).toContain('planRateLimit must be an integer from 1 to');
    expect(message).toContain('apiBurstLimit must be an integer from 1 to 5000; got "lots"');
    expect(message).toContain('usagePlanQuotaPeriod must be one of DAY, WEEK, MONTH; got "YEAR"');
    expect(message).toContain('archiveObjectLockMode must be one of COMPLIANCE, GOVERNANCE; got "compliance"');
    expect(message).toContain('logRetentionDays must be one of 1, 3, 5');
    expect(message).toContain('production must be true or false; got "yes"');
    expect(message).toContain('alarmTopicArn must be an SNS topic ARN; got "oncall"');
  });

  test('production keeps archived audit records at least the audit retention', () => {
    // Act
    const message = problemsOf({ stage: 'prod', archiveObjectLockDays: AUDIT_RETENTION_DAYS - 1 });

    // Assess
    expect(message).toContain(`archiveObjectLockDays must be an integer from ${AUDIT_RETENTION_DAYS} to 36500 (production keeps audit records at least ${AUDIT_RETENTION_DAYS} days)`);
  });

  test('a dev stage may shorten the lock, so test objects do not stay locked for two years', () => {
    expect(readServiceConfig(contextOf({ archiveObjectLockDays: 1 })).archiveObjectLockDays).toBe(1);
  });

  test('a burst below its rate is rejected', () => {
    expect(problemsOf({ usagePlanRateLimit: 200, usagePlanBurstLimit: 100 })).toContain('usagePlanBurstLimit (100) must be at least usagePlanRateLimit (200)');
  });

  test('the documented keys are exactly the configuration fields', () => {
    // Act
    const fields = Object.keys(readServiceConfig(contextOf({}))).sort();

    // Assess
    expect([...CONTEXT_KEYS].sort()).toEqual(fields);
  });
});
