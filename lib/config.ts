import type { Construct } from 'constructs';
import { DEFAULT_GUESS_LIMIT_PER_MINUTE, DEFAULT_PLAN_RATE_LIMIT, DEFAULT_WRITE_THROTTLE } from '../lambda/contract/defaults';
import type { UsagePlans } from '../lambda/contract/plans';
import { ARCHIVE_RETENTION_DAYS, AUDIT_RETENTION_DAYS } from '../lambda/contract/retention';
import { DEFAULT_METRICS_NAMESPACE } from '../lambda/contract/metrics';
import { GITHUB_SECRET_SCANNING_KEYS_URL } from '../lambda/contract/partners';
import { ContextReader, type ContextSource } from './context-reader';

/**
 * The one typed reader of CDK context. Every setting has a default; a bad
 * value fails synthesis with a message that names the context key, what was
 * given and what is allowed. Values given on the command line
 * (`-c key=value`) arrive as strings, so numbers and booleans are parsed here.
 */

export type ObjectLockMode = 'COMPLIANCE' | 'GOVERNANCE';

/** What a setting's default may depend on: the stage, and whether it is production. */
interface StageFacts {
  readonly stage: string;
  readonly production: boolean;
}

/** How one setting is read: its context key, the reader, and the stage it belongs to. */
type Setting<T> = (key: string, read: ContextReader, facts: StageFacts) => T;

const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

/**
 * Every setting of the stack, declared once: its words, its default and its
 * check, in the order the configuration table of docs/deploy.md lists them.
 * `ServiceConfig`, `CONTEXT_KEYS` and `DEFAULTS` are derived from it.
 */
const SETTINGS = {
  /** Deployment stage name; part of the stack name and the API stage name. */
  stage: ((key, read) =>
    read.string(key, 'dev', STAGE_PATTERN, 'lowercase letters, digits and hyphens, starting with a letter, at most 20 characters')) satisfies Setting<string>,
  /** Production stages get deletion protection and retained tables. */
  production: ((key, read, facts) => read.boolean(key, PRODUCTION_STAGES.includes(facts.stage))) satisfies Setting<boolean>,
  /** Default `rate_limit` (requests per hour) of a key created without one. */
  planRateLimit: ((key, read) => read.integer(key, DEFAULT_PLAN_RATE_LIMIT, 1, 10_000_000)) satisfies Setting<number>,
  /** Stage-wide steady-state throttle, requests per second (all methods). */
  apiRateLimit: ((key, read) => read.number(key, 100, 1, 10_000)) satisfies Setting<number>,
  /** Stage-wide burst throttle, requests (all methods). */
  apiBurstLimit: ((key, read) => read.integer(key, 200, 1, 5_000)) satisfies Setting<number>,
  /** Per-method steady-state throttle of create, regenerate and delete, requests per second. */
  managementRateLimit: ((key, read) => read.number(key, DEFAULT_WRITE_THROTTLE.rateLimit, 1, 10_000)) satisfies Setting<number>,
  /** Per-method burst throttle of create, regenerate and delete, requests. */
  managementBurstLimit: ((key, read) => read.integer(key, DEFAULT_WRITE_THROTTLE.burstLimit, 1, 5_000)) satisfies Setting<number>,
  /** Usage plans by name (one API Gateway usage plan each); every team's API Gateway key is in one. */
  plans: ((key, read) => read.plans(key)) satisfies Setting<UsagePlans>,
  /** Platform API stages the plans also cover, as `<restApiId>:<stage>` (APIs that attach the platform authorizer). */
  planApiStages: ((key, read) => read.apiStages(key)) satisfies Setting<readonly string[]>,
  /**
   * S3 Object Lock mode of archived audit objects. Outside production
   * GOVERNANCE: a throwaway stack must not leave a bucket nobody can empty
   * for two years.
   */
  archiveObjectLockMode: ((key, read, facts) =>
    read.oneOf(key, facts.production ? PRODUCTION_ARCHIVE_LOCK.mode : 'GOVERNANCE', ['COMPLIANCE', 'GOVERNANCE'] as const)) satisfies Setting<ObjectLockMode>,
  /**
   * S3 Object Lock default retention of archived audit objects, in days;
   * below the audit retention only outside production.
   */
  archiveObjectLockDays: ((key, read, facts) =>
    read.integer(
      key,
      facts.production ? PRODUCTION_ARCHIVE_LOCK.days : 1,
      facts.production ? AUDIT_RETENTION_DAYS : 1,
      MAX_OBJECT_LOCK_DAYS,
      facts.production ? `production keeps audit records at least ${AUDIT_RETENTION_DAYS} days` : undefined,
    )) satisfies Setting<number>,
  /** Retention of every CloudWatch log group of the stack, in days. */
  logRetentionDays: ((key, read) => read.member(key, 365, LOG_RETENTION_DAYS)) satisfies Setting<number>,
  /** Whether the stack sets the account-wide API Gateway CloudWatch Logs role. */
  apiGatewayCloudWatchRole: ((key, read) => read.boolean(key, true)) satisfies Setting<boolean>,
  /** SNS topic that alarms notify; none means alarms only change state. */
  alarmTopicArn: ((key, read) => read.optionalString(key, /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, 'an SNS topic ARN')) satisfies Setting<
    string | undefined
  >,
  /** Regional WAFv2 web ACL associated with the API stage; none means no association. */
  webAclArn: ((key, read) =>
    read.optionalString(
      key,
      /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[A-Za-z0-9_-]+\/[a-f0-9-]+$/,
      'a regional WAFv2 web ACL ARN',
    )) satisfies Setting<string | undefined>,
  /** Verify endpoint: unknown values one source may verify per minute (`VERIFY_GUESS_LIMIT_PER_MINUTE`). */
  verifyGuessLimitPerMinute: ((key, read) => read.integer(key, DEFAULT_GUESS_LIMIT_PER_MINUTE, 1, 10_000)) satisfies Setting<number>,
  /**
   * Authorizer route table `{"<METHOD> /<path>": "<scope>"}` (`AUTHORIZER_ROUTE_SCOPES`).
   * Empty: no route table, so every valid key is allowed on every route
   * (unless `authorizerScope` is set); non-empty: unmapped routes are denied.
   */
  authorizerRouteScopes: ((key, read) => read.routeScopes(key)) satisfies Setting<Readonly<Record<string, string>>>,
  /** Authorizer: a scope every route needs (`AUTHORIZER_SCOPE`); none means no such scope. */
  authorizerScope: ((key, read) => read.authorizerScope(key)) satisfies Setting<string | undefined>,
  /**
   * Platform API stages whose authorizer cache is flushed when a key stops
   * (disabled, deleted, leaked, an old value ended), as `<restApiId>:<stage>`;
   * the `planApiStages` are flushed too.
   */
  authorizerCacheStages: ((key, read) => read.apiStages(key)) satisfies Setting<readonly string[]>,
  /**
   * The longest authorizer result-cache TTL of the platform stages, in
   * seconds (0 to 3600; default 300, API Gateway's): a regeneration whose
   * use-driven grace is shorter answers with a warning (docs/verification.md, "Grace modes").
   */
  authorizerCacheTtl: ((key, read) => read.integer(key, 300, 0, 3600)) satisfies Setting<number>,
  /** Where the partner endpoint fetches GitHub's secret-scanning public keys (an https URL). */
  githubSecretScanningKeysUrl: ((key, read) =>
    read.string(key, GITHUB_SECRET_SCANNING_KEYS_URL, /^https:\/\/[^\s]{1,2000}$/, 'an https URL')) satisfies Setting<string>,
  /**
   * Where callers reach the verify endpoint besides the REST API: `rest-api`
   * (only there), `http-api` (an HTTP API with the same throttle ceiling) or
   * `function-url` (a Lambda function URL); docs/deploy.md says what each gives up.
   */
  verifyFrontDoor: ((key, read) => read.oneOf(key, 'rest-api', ['rest-api', 'http-api', 'function-url'] as const)) satisfies Setting<
    'rest-api' | 'http-api' | 'function-url'
  >,
  /** Secrets Manager secret whose SecretString is the value-hash pepper; none: plain SHA-256. */
  keyHashPepperSecretArn: ((key, read) =>
    read.optionalString(
      key,
      /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/,
      'a Secrets Manager secret ARN',
    )) satisfies Setting<string | undefined>,
  /** CloudWatch namespace of the custom metrics. */
  metricsNamespace: ((key, read) =>
    read.string(
      key,
      DEFAULT_METRICS_NAMESPACE,
      /^[A-Za-z0-9._/#:-]{1,255}$/,
      'a CloudWatch namespace (letters, digits and . _ / # : -)',
    )) satisfies Setting<string>,
  /** Lowest level the functions log (`POWERTOOLS_LOG_LEVEL`). */
  logLevel: ((key, read) => read.oneOf(key, 'INFO', ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const)) satisfies Setting<'DEBUG' | 'INFO' | 'WARN' | 'ERROR'>,
  /** Share of invocations (0–1) that log at DEBUG whatever `logLevel` says. */
  logSampleRate: ((key, read) => read.number(key, 0.01, 0, 1)) satisfies Setting<number>,
  /** Bundle Powertools Tracer (X-Ray SDK: AWS SDK subsegments, route annotation) into every function. */
  tracer: ((key, read) => read.boolean(key, false)) satisfies Setting<boolean>,
  /** Ship source maps and turn on `--enable-source-maps` (readable stack traces, slower cold starts). */
  sourceMaps: ((key, read) => read.boolean(key, false)) satisfies Setting<boolean>,
  /** Deploy the key console: its files in S3 behind CloudFront, which also sends `/functions/v1/*` to the API. */
  console: ((key, read) => read.boolean(key, false)) satisfies Setting<boolean>,
};

/** The service configuration: every setting, read. */
export type ServiceConfig = { readonly [K in keyof typeof SETTINGS]: ReturnType<(typeof SETTINGS)[K]> };

export type ContextKey = keyof typeof SETTINGS;

/** Context keys, in the order docs/deploy.md's configuration table lists them. */
export const CONTEXT_KEYS = Object.keys(SETTINGS) as ContextKey[];

/** The archive's Object Lock in production unless set: nobody, root included, can delete a record for two years. */
export const PRODUCTION_ARCHIVE_LOCK = { mode: 'COMPLIANCE', days: ARCHIVE_RETENTION_DAYS } as const;

/** Stage names that count as production when `production` is not set. */
export const PRODUCTION_STAGES: readonly string[] = ['prod', 'production'];

/** Retention periods CloudWatch Logs accepts (never "forever": every log group expires). */
export const LOG_RETENTION_DAYS: readonly number[] = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

/** S3 Object Lock allows at most 100 years of default retention. */
const MAX_OBJECT_LOCK_DAYS = 36_500;

/**
 * Reads and validates the service configuration from CDK context.
 *
 * @throws Error listing every invalid key, so one synth shows all problems.
 */
export function readServiceConfig(source: ContextSource | Construct): ServiceConfig {
  const context: ContextSource = 'node' in source ? source.node : source;
  const problems: string[] = [];
  const read = new ContextReader(context, problems);

  // The stage first: whether it is production decides other defaults.
  const stage = SETTINGS.stage('stage', read);
  const facts: StageFacts = { stage, production: SETTINGS.production('production', read, { stage, production: false }) };
  const config = Object.fromEntries(
    CONTEXT_KEYS.map((key) => [key, key === 'stage' ? stage : key === 'production' ? facts.production : (SETTINGS[key] as Setting<unknown>)(key, read, facts)]),
  ) as unknown as ServiceConfig;

  if (config.apiBurstLimit < config.apiRateLimit) {
    problems.push(`apiBurstLimit (${config.apiBurstLimit}) must be at least apiRateLimit (${config.apiRateLimit})`);
  }
  if (config.managementBurstLimit < config.managementRateLimit) {
    problems.push(`managementBurstLimit (${config.managementBurstLimit}) must be at least managementRateLimit (${config.managementRateLimit})`);
  }

  // The stage throttle holds all teams together: a ceiling, never below what one team's plan allows.
  for (const [name, plan] of Object.entries(config.plans)) {
    if (config.apiRateLimit < plan.rateLimit) {
      problems.push(
        `apiRateLimit (${config.apiRateLimit}) must be at least plan "${name}"'s rateLimit (${plan.rateLimit}): the stage throttle holds every team together`,
      );
    }
    if (config.apiBurstLimit < plan.burstLimit) {
      problems.push(
        `apiBurstLimit (${config.apiBurstLimit}) must be at least plan "${name}"'s burstLimit (${plan.burstLimit}): the stage throttle holds every team together`,
      );
    }
  }

  if (problems.length > 0) {
    throw new Error(`Invalid CDK context for the API key service:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return config;
}

/** The defaults of every setting but `production` (which follows the stage name): what an empty context reads as. */
export const DEFAULTS: Omit<ServiceConfig, 'production'> = readServiceConfig({ tryGetContext: () => undefined });
