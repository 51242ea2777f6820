import type { Construct } from 'constructs';
import { DEFAULT_GUESS_LIMIT_PER_MINUTE, DEFAULT_PLAN_RATE_LIMIT } from '../lambda/contract/defaults';
import { DEFAULT_USAGE_PLANS, parseUsagePlans, type UsagePlans } from '../lambda/contract/plans';
import { parseRouteScopeTable } from '../lambda/contract/route-scopes';
import { ARCHIVE_RETENTION_DAYS, AUDIT_RETENTION_DAYS } from '../lambda/contract/retention';
import { isValidScope } from '../lambda/contract/scopes';
import { DEFAULT_METRICS_NAMESPACE } from '../lambda/contract/metrics';

/**
 * The one typed reader of CDK context. Every setting has a default; a bad
 * value fails synthesis with a message that names the context key, what was
 * given and what is allowed. Values given on the command line
 * (`-c key=value`) arrive as strings, so numbers and booleans are parsed here.
 */

export type ObjectLockMode = 'COMPLIANCE' | 'GOVERNANCE';

export interface ServiceConfig {
  /** Deployment stage name; part of the stack name and the API stage name. */
  readonly stage: string;
  /** Production stages get deletion protection and retained tables. */
  readonly production: boolean;
  /** Default `rate_limit` (requests per hour) of a key created without one. */
  readonly planRateLimit: number;
  /** Stage-wide steady-state throttle, requests per second (all methods). */
  readonly apiRateLimit: number;
  /** Stage-wide burst throttle, requests (all methods). */
  readonly apiBurstLimit: number;
  /** Per-method steady-state throttle of create, regenerate and delete, requests per second. */
  readonly managementRateLimit: number;
  /** Per-method burst throttle of create, regenerate and delete, requests. */
  readonly managementBurstLimit: number;
  /** Usage plans by name (one API Gateway usage plan each); every team's API Gateway key is in one. */
  readonly plans: UsagePlans;
  /** Platform API stages the plans also cover, as `<restApiId>:<stage>` (APIs that attach the platform authorizer). */
  readonly planApiStages: readonly string[];
  /** S3 Object Lock mode of archived audit objects. */
  readonly archiveObjectLockMode: ObjectLockMode;
  /** S3 Object Lock default retention of archived audit objects, in days. */
  readonly archiveObjectLockDays: number;
  /** Retention of every CloudWatch log group of the stack, in days. */
  readonly logRetentionDays: number;
  /** Whether the stack sets the account-wide API Gateway CloudWatch Logs role. */
  readonly apiGatewayCloudWatchRole: boolean;
  /** SNS topic that alarms notify; none means alarms only change state. */
  readonly alarmTopicArn: string | undefined;
  /** Regional WAFv2 web ACL associated with the API stage; none means no association. */
  readonly webAclArn: string | undefined;
  /** Verify endpoint: unknown values one source may verify per minute (`VERIFY_GUESS_LIMIT_PER_MINUTE`). */
  readonly verifyGuessLimitPerMinute: number;
  /**
   * Authorizer route table `{"<METHOD> /<path>": "<scope>"}` (`AUTHORIZER_ROUTE_SCOPES`).
   * Empty: no route table, so every valid key is allowed on every route
   * (unless `authorizerScope` is set); non-empty: unmapped routes are denied.
   */
  readonly authorizerRouteScopes: Readonly<Record<string, string>>;
  /** Authorizer: a scope every route needs (`AUTHORIZER_SCOPE`); none means no such scope. */
  readonly authorizerScope: string | undefined;
  /** Secrets Manager secret whose SecretString is the value-hash pepper; none: plain SHA-256. */
  readonly keyHashPepperSecretArn: string | undefined;
  /** CloudWatch namespace of the custom metrics. */
  readonly metricsNamespace: string;
  /** Lowest level the functions log (`POWERTOOLS_LOG_LEVEL`). */
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Share of invocations (0–1) that log at DEBUG whatever `logLevel` says. */
  readonly logSampleRate: number;
  /** Bundle Powertools Tracer (X-Ray SDK: AWS SDK subsegments, route annotation) into every function. */
  readonly tracer: boolean;
  /** Ship source maps and turn on `--enable-source-maps` (readable stack traces, slower cold starts). */
  readonly sourceMaps: boolean;
  /** Deploy the key console: its files in S3 behind CloudFront, which also sends `/functions/v1/*` to the API. */
  readonly console: boolean;
}

/** Context keys, in the order the README's configuration table lists them. */
export const CONTEXT_KEYS = [
  'stage',
  'production',
  'planRateLimit',
  'apiRateLimit',
  'apiBurstLimit',
  'managementRateLimit',
  'managementBurstLimit',
  'plans',
  'planApiStages',
  'archiveObjectLockMode',
  'archiveObjectLockDays',
  'logRetentionDays',
  'apiGatewayCloudWatchRole',
  'alarmTopicArn',
  'webAclArn',
  'verifyGuessLimitPerMinute',
  'authorizerRouteScopes',
  'authorizerScope',
  'keyHashPepperSecretArn',
  'metricsNamespace',
  'logLevel',
  'logSampleRate',
  'tracer',
  'sourceMaps',
  'console',
] as const satisfies ReadonlyArray<keyof ServiceConfig>;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** Defaults of every setting except `production`, which follows the stage name. */
export const DEFAULTS = {
  stage: 'dev',
  planRateLimit: DEFAULT_PLAN_RATE_LIMIT,
  apiRateLimit: 100,
  apiBurstLimit: 200,
  managementRateLimit: 10,
  managementBurstLimit: 20,
  plans: DEFAULT_USAGE_PLANS,
  planApiStages: [],
  // Outside production: a throwaway stack must not leave a bucket nobody can empty for two years.
  archiveObjectLockMode: 'GOVERNANCE',
  archiveObjectLockDays: 1,
  logRetentionDays: 365,
  apiGatewayCloudWatchRole: true,
  alarmTopicArn: undefined,
  webAclArn: undefined,
  verifyGuessLimitPerMinute: DEFAULT_GUESS_LIMIT_PER_MINUTE,
  authorizerRouteScopes: {},
  authorizerScope: undefined,
  keyHashPepperSecretArn: undefined,
  metricsNamespace: DEFAULT_METRICS_NAMESPACE,
  logLevel: 'INFO',
  logSampleRate: 0.01,
  tracer: false,
  sourceMaps: false,
  console: false,
} as const satisfies Omit<ServiceConfig, 'production'>;

/** The archive's Object Lock in production unless set: nobody, root included, can delete a record for two years. */
export const PRODUCTION_ARCHIVE_LOCK = { mode: 'COMPLIANCE', days: ARCHIVE_RETENTION_DAYS } as const;

/** Stage names that count as production when `production` is not set. */
export const PRODUCTION_STAGES: readonly string[] = ['prod', 'production'];

/** Retention periods CloudWatch Logs accepts (never "forever": every log group expires). */
export const LOG_RETENTION_DAYS: readonly number[] = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

/** S3 Object Lock allows at most 100 years of default retention. */
const MAX_OBJECT_LOCK_DAYS = 36_500;

/**
 * Longest `AUTHORIZER_ROUTE_SCOPES` JSON: Lambda allows 4 KB of environment
 * variables per function in total, and the authorizer has a few others.
 */
export const MAX_ROUTE_SCOPES_JSON_LENGTH = 3_072;

/** A source of context values; `Construct#node` satisfies it. */
export interface ContextSource {
  tryGetContext(key: string): unknown;
}

/**
 * Reads and validates the service configuration from CDK context.
 *
 * @throws Error listing every invalid key, so one synth shows all problems.
 */
export function readServiceConfig(source: ContextSource | Construct): ServiceConfig {
  const context: ContextSource = 'node' in source ? source.node : source;
  const problems: string[] = [];
  const reader = new ContextReader(context, problems);

  const stage = reader.string(
    'stage',
    DEFAULTS.stage,
    /^[a-z][a-z0-9-]{0,19}$/,
    'lowercase letters, digits and hyphens, starting with a letter, at most 20 characters',
  );
  const production = reader.boolean('production', PRODUCTION_STAGES.includes(stage));
  const config: ServiceConfig = {
    stage,
    production,
    planRateLimit: reader.integer('planRateLimit', DEFAULTS.planRateLimit, 1, 10_000_000),
    apiRateLimit: reader.number('apiRateLimit', DEFAULTS.apiRateLimit, 1, 10_000),
    apiBurstLimit: reader.integer('apiBurstLimit', DEFAULTS.apiBurstLimit, 1, 5_000),
    managementRateLimit: reader.number('managementRateLimit', DEFAULTS.managementRateLimit, 1, 10_000),
    managementBurstLimit: reader.integer('managementBurstLimit', DEFAULTS.managementBurstLimit, 1, 5_000),
    plans: reader.plans('plans'),
    planApiStages: reader.apiStages('planApiStages'),
    archiveObjectLockMode: reader.oneOf('archiveObjectLockMode', production ? PRODUCTION_ARCHIVE_LOCK.mode : DEFAULTS.archiveObjectLockMode, [
      'COMPLIANCE',
      'GOVERNANCE',
    ] as const),
    // Below the audit retention only outside production: a dev stack should not
    // leave objects nobody can delete for two years.
    archiveObjectLockDays: reader.integer(
      'archiveObjectLockDays',
      production ? PRODUCTION_ARCHIVE_LOCK.days : DEFAULTS.archiveObjectLockDays,
      production ? AUDIT_RETENTION_DAYS : 1,
      MAX_OBJECT_LOCK_DAYS,
      production ? `production keeps audit records at least ${AUDIT_RETENTION_DAYS} days` : undefined,
    ),
    logRetentionDays: reader.member('logRetentionDays', DEFAULTS.logRetentionDays, LOG_RETENTION_DAYS),
    apiGatewayCloudWatchRole: reader.boolean('apiGatewayCloudWatchRole', DEFAULTS.apiGatewayCloudWatchRole),
    alarmTopicArn: reader.optionalString('alarmTopicArn', /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, 'an SNS topic ARN'),
    webAclArn: reader.optionalString(
      'webAclArn',
      /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[A-Za-z0-9_-]+\/[a-f0-9-]+$/,
      'a regional WAFv2 web ACL ARN',
    ),
    verifyGuessLimitPerMinute: reader.integer('verifyGuessLimitPerMinute', DEFAULTS.verifyGuessLimitPerMinute, 1, 10_000),
    authorizerRouteScopes: reader.routeScopes('authorizerRouteScopes'),
    authorizerScope: reader.authorizerScope('authorizerScope'),
    keyHashPepperSecretArn: reader.optionalString(
      'keyHashPepperSecretArn',
      /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/,
      'a Secrets Manager secret ARN',
    ),
    metricsNamespace: reader.string(
      'metricsNamespace',
      DEFAULTS.metricsNamespace,
      /^[A-Za-z0-9._/#:-]{1,255}$/,
      'a CloudWatch namespace (letters, digits and . _ / # : -)',
    ),
    logLevel: reader.oneOf('logLevel', DEFAULTS.logLevel, ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const),
    logSampleRate: reader.number('logSampleRate', DEFAULTS.logSampleRate, 0, 1),
    tracer: reader.boolean('tracer', DEFAULTS.tracer),
    sourceMaps: reader.boolean('sourceMaps', DEFAULTS.sourceMaps),
    console: reader.boolean('console', DEFAULTS.console),
  };

  if (config.apiBurstLimit < config.apiRateLimit) {
    problems.push(`apiBurstLimit (${config.apiBurstLimit}) must be at least apiRateLimit (${config.apiRateLimit})`);
  }
  if (config.managementBurstLimit < config.managementRateLimit) {
    problems.push(`managementBurstLimit (${config.managementBurstLimit}) must be at least managementRateLimit (${config.managementRateLimit})`);
  }

  if (problems.length > 0) {
    throw new Error(`Invalid CDK context for the API key service:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return config;
}

/** Parses one context value at a time and records problems instead of throwing. */
class ContextReader {
  constructor(
    private readonly context: ContextSource,
    private readonly problems: string[],
  ) {}

  private raw(key: ContextKey): unknown {
    const value = this.context.tryGetContext(key);
    return value === '' || value === null ? undefined : value;
  }

  string<T extends string | undefined>(key: ContextKey, fallback: T, pattern: RegExp, allowed: string): string | T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !pattern.test(value)) {
      this.problems.push(`${key} must be ${allowed}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return value;
  }

  optionalString(key: ContextKey, pattern: RegExp, allowed: string): string | undefined {
    return this.string(key, undefined, pattern, allowed);
  }

  boolean(key: ContextKey, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    this.problems.push(`${key} must be true or false; got ${JSON.stringify(value)}`);
    return fallback;
  }

  number(key: ContextKey, fallback: number, min: number, max: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${key} must be a number from ${min} to ${max}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return parsed;
  }

  integer(key: ContextKey, fallback: number, min: number, max: number, why?: string): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      const reason = why === undefined ? '' : ` (${why})`;
      this.problems.push(`${key} must be an integer from ${min} to ${max}${reason}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return parsed;
  }

  member(key: ContextKey, fallback: number, allowed: readonly number[]): number {
    const parsed = this.integer(key, fallback, Math.min(...allowed), Math.max(...allowed));
    if (!allowed.includes(parsed)) {
      this.problems.push(`${key} must be one of ${allowed.join(', ')}; got ${JSON.stringify(this.raw(key))}`);
      return fallback;
    }
    return parsed;
  }

  /**
   * A route → scope map, as an object (cdk.json) or its JSON text (`-c`),
   * checked with the authorizer's grammar so that synthesis fails where the
   * authorizer's cold start would.
   */
  routeScopes(key: ContextKey): Readonly<Record<string, string>> {
    const value = this.raw(key);
    if (value === undefined) return {};
    const table = parseRouteScopeTable(value);
    if (table.kind === 'not-a-table') {
      this.problems.push(`${key} ${table.problem}; got ${JSON.stringify(value)}`);
      return {};
    }
    if (table.problems.length > 0) {
      this.problems.push(...table.problems.map((problem) => `${key}: ${problem}`));
      return {};
    }
    // Valid JSON by now: the table parsed.
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    const json = JSON.stringify(parsed);
    if (json.length > MAX_ROUTE_SCOPES_JSON_LENGTH) {
      this.problems.push(
        `${key} must be at most ${MAX_ROUTE_SCOPES_JSON_LENGTH} characters of JSON (Lambda allows 4 KB of environment variables); got ${json.length}`,
      );
      return {};
    }
    return parsed as Record<string, string>;
  }

  /** Usage plans (an object in cdk.json, or its JSON text with `-c`), checked as the local runtime checks `USAGE_PLANS`. */
  plans(key: ContextKey): UsagePlans {
    const value = this.raw(key);
    if (value === undefined) return DEFAULT_USAGE_PLANS;
    const { plans, problems } = parseUsagePlans(value);
    this.problems.push(...problems.map((problem) => `${key}: ${problem}`));
    return problems.length > 0 ? DEFAULT_USAGE_PLANS : plans;
  }

  /** A list of `<restApiId>:<stage>` (an array in cdk.json, or its JSON text with `-c`). */
  apiStages(key: ContextKey): string[] {
    let value = this.raw(key);
    if (value === undefined) return [];
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        // reported below
      }
    }
    const valid = Array.isArray(value) && value.every((entry) => typeof entry === 'string' && /^[a-z0-9]{10}:[A-Za-z0-9_-]{1,128}$/.test(entry));
    if (!valid) {
      this.problems.push(`${key} must be a list of "<restApiId>:<stage>", e.g. ["a1b2c3d4e5:prod"]; got ${JSON.stringify(this.raw(key))}`);
      return [];
    }
    return value as string[];
  }

  /** One scope (`AUTHORIZER_SCOPE`), checked like the authorizer does. */
  authorizerScope(key: ContextKey): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isValidScope(value)) {
      this.problems.push(`${key} must be a scope such as enc.*:read; "${String(value)}" is not a valid scope`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(key: ContextKey, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const match = allowed.find((candidate) => candidate === value);
    if (match === undefined) {
      this.problems.push(`${key} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
      return fallback;
    }
    return match;
  }
}
