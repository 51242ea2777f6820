/**
 * Names of the environment variables the stack sets on the functions. The
 * first three are read by `lambda/platform/config.ts`; the rest are read by the
 * verification, rotation and archive code. One spelling, shared by the stack
 * and its tests.
 */
export const ENV = {
  /** Physical name of the key table. */
  KEY_TABLE_NAME: 'KEY_TABLE_NAME',
  /** Physical name of the audit table. */
  AUDIT_TABLE_NAME: 'AUDIT_TABLE_NAME',
  /** Plan limit: requests per hour for keys created without `rate_limit`. */
  PLAN_RATE_LIMIT: 'PLAN_RATE_LIMIT',
  /** EventBridge Scheduler group that holds the one-shot expiry schedules. */
  SCHEDULE_GROUP_NAME: 'SCHEDULE_GROUP_NAME',
  /** ARN of the function a schedule invokes to revoke an old key value. */
  EXPIRE_FUNCTION_ARN: 'EXPIRE_FUNCTION_ARN',
  /** Role EventBridge Scheduler assumes to invoke the expire function. */
  SCHEDULER_ROLE_ARN: 'SCHEDULER_ROLE_ARN',
  /** Dead-letter queue a schedule sends its event to when delivery fails. */
  SCHEDULER_DLQ_ARN: 'SCHEDULER_DLQ_ARN',
  /** Bucket the audit archiver writes date-partitioned objects to. */
  ARCHIVE_BUCKET_NAME: 'ARCHIVE_BUCKET_NAME',
  /** Verify endpoint: unknown values one source may verify per minute (`lambda/verification/guess-limiter.ts`). */
  VERIFY_GUESS_LIMIT_PER_MINUTE: 'VERIFY_GUESS_LIMIT_PER_MINUTE',
  /** Authorizer: a scope every route needs (`lambda/handlers/authorizer.ts`). */
  AUTHORIZER_SCOPE: 'AUTHORIZER_SCOPE',
  /** Authorizer: JSON `{"<METHOD> /<path>": "<scope>"}` (`lambda/handlers/authorizer.ts`). */
  AUTHORIZER_ROUTE_SCOPES: 'AUTHORIZER_ROUTE_SCOPES',
  /** Secrets Manager secret holding the value-hash pepper (optional; `lambda/platform/pepper.ts`). */
  KEY_HASH_PEPPER_SECRET_ARN: 'KEY_HASH_PEPPER_SECRET_ARN',
  /** Powertools: the `service` of every log line and metric. */
  POWERTOOLS_SERVICE_NAME: 'POWERTOOLS_SERVICE_NAME',
  /** Powertools: the CloudWatch namespace of the custom metrics. */
  POWERTOOLS_METRICS_NAMESPACE: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Powertools: the lowest level written (DEBUG, INFO, WARN, ERROR). */
  POWERTOOLS_LOG_LEVEL: 'POWERTOOLS_LOG_LEVEL',
  /** Powertools: the share of invocations (0–1) logged at DEBUG whatever the level. */
  POWERTOOLS_LOGGER_SAMPLE_RATE: 'POWERTOOLS_LOGGER_SAMPLE_RATE',
} as const;

/** The name of one environment variable of `ENV`. */
export type Env = keyof typeof ENV;

/** What every management route's function reads: its tables and the plan's default rate limit. */
export const MANAGEMENT_SETTINGS: readonly Env[] = ['KEY_TABLE_NAME', 'AUDIT_TABLE_NAME', 'PLAN_RATE_LIMIT'];
