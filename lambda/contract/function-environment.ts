/**
 * The function environment, declared once: every variable a function reads,
 * and how it is read. The stack sets the ones under "set by the stack"
 * (lib/ spells each name through `ENV`); the local runtime and the tests set
 * the ones under "set locally"; Lambda sets its own. Functions read them only
 * through lambda/platform/environment.ts, whose readers the compiler holds
 * to these kinds (test/architecture/environment.test.ts keeps direct reads
 * out of the rest of lambda/).
 */

/** `required`: non-empty, or the read throws; `optional`: absent or empty reads as undefined; `positive integer`: with a default where it is read. */
export type EnvKind = 'required' | 'optional' | 'positive integer';

/** Variables read as they are, absent or empty as undefined, declared together. */
function optional<const N extends string>(...names: N[]): { readonly [K in N]: 'optional' } {
  return Object.fromEntries(names.map((name) => [name, 'optional'])) as { readonly [K in N]: 'optional' };
}

const SET_BY_THE_STACK = {
  /** Physical name of the key table. */
  KEY_TABLE_NAME: 'required',
  /** Physical name of the audit table. */
  AUDIT_TABLE_NAME: 'required',
  /** Plan limit: requests per hour for keys created without `rate_limit`. */
  PLAN_RATE_LIMIT: 'positive integer',
  /** EventBridge Scheduler group that holds the one-shot expiry schedules (its presence selects the EventBridge scheduler). */
  SCHEDULE_GROUP_NAME: 'required',
  /** ARN of the function a schedule invokes to revoke an old key value. */
  EXPIRE_FUNCTION_ARN: 'required',
  /** Role EventBridge Scheduler assumes to invoke the expire function. */
  SCHEDULER_ROLE_ARN: 'required',
  /** Dead-letter queue a schedule sends its event to when delivery fails. */
  SCHEDULER_DLQ_ARN: 'required',
  /** KMS key that seals webhook signing secrets (encryption context: the endpoint id). */
  WEBHOOK_SECRET_KEY_ARN: 'required',
  /** The service's EventBridge bus: every lifecycle event is put on it. */
  EVENT_BUS_NAME: 'required',
  /** The webhook delivery queue (retries up to 15 minutes ahead are sent to it with a delay). */
  WEBHOOK_QUEUE_URL: 'required',
  /** Its ARN: longer retries are one-shot schedules that send to it. */
  WEBHOOK_QUEUE_ARN: 'required',
  /** ARN of the function the expiry schedules invoke (key.expiring, key.expired). */
  KEY_EXPIRY_FUNCTION_ARN: 'required',
  /** Bucket the audit archiver writes date-partitioned objects to (required unless `ARCHIVE_DIR` is set). */
  ARCHIVE_BUCKET_NAME: 'required',
  /** The asymmetric KMS key (ECC_NIST_P256) that signs the audit checkpoints; only the checkpoint function may sign with it. */
  AUDIT_SIGNING_KEY_ARN: 'required',
  /** Bucket the analytics rollup exports each team's hours to as Parquet (docs/analytics.md); unset: not exported. */
  ANALYTICS_BUCKET_NAME: 'optional',
  /** Verify endpoint: unknown values one source may verify per minute (`lambda/verification/guess-limiter.ts`). */
  VERIFY_GUESS_LIMIT_PER_MINUTE: 'positive integer',
  /**
   * GitHub secret scanning: GitHub's public-keys document itself,
   * `{"public_keys":[{"key_identifier","key","is_current"}]}`, pinned (the
   * local runtime and the tests; in AWS only when context pins it). Set, it
   * is the only source of keys: nothing is fetched.
   */
  GITHUB_SECRET_SCANNING_KEYS: 'optional',
  /** GitHub secret scanning: where the public-keys document is fetched (GitHub's endpoint unless context names another). */
  GITHUB_SECRET_SCANNING_KEYS_URL: 'optional',
  /** Platform stages whose authorizer cache is flushed when a key stops: JSON `["<restApiId>:<stage>"]` (`lambda/handlers/flush-authorizer-cache.ts`). */
  AUTHORIZER_CACHE_STAGES: 'optional',
  /**
   * The longest authorizer result-cache TTL of the platform stages, in seconds (context `authorizerCacheTtl`, default
   * 300 as API Gateway's): regenerate warns when a use-driven grace is shorter (docs/verification.md, "Grace modes").
   */
  AUTHORIZER_CACHE_TTL_SECONDS: 'optional',
  /** Authorizer: a scope every route needs (`lambda/handlers/authorizer.ts`). */
  AUTHORIZER_SCOPE: 'optional',
  /** Authorizer: JSON `{"<METHOD> /<path>": "<scope>"}` (`lambda/handlers/authorizer.ts`). */
  AUTHORIZER_ROUTE_SCOPES: 'optional',
  /**
   * With the console: the secret the console's CloudFront distribution sends
   * in `X-Origin-Verify`, so that requests proven to come through it are
   * taken from the viewer's address (`lambda/http/source-address.ts`).
   */
  ORIGIN_VERIFY_SECRET: 'optional',
  /**
   * The key page cursors are signed with (HMAC-SHA256, `lambda/platform/cursor.ts`): a
   * Secrets Manager secret the stack generates, resolved at deploy; locally a
   * key made in the data directory. Changing it only makes outstanding cursors 400.
   */
  CURSOR_SIGNING_KEY: 'required',
  /** Secrets Manager secret holding the value-hash pepper (optional; `lambda/adapters/pepper.ts`). */
  KEY_HASH_PEPPER_SECRET_ARN: 'optional',
  /**
   * Powertools' own settings: `POWERTOOLS_SERVICE_NAME` (the `service` of every
   * log line and metric), `POWERTOOLS_METRICS_NAMESPACE` (the CloudWatch
   * namespace of the custom metrics), `POWERTOOLS_LOG_LEVEL` (the lowest level
   * written) and `POWERTOOLS_LOGGER_SAMPLE_RATE` (the share of invocations, 0–1,
   * logged at DEBUG whatever the level); the last two are read by Powertools itself.
   */
  ...optional('POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_LOGGER_SAMPLE_RATE'),
} as const satisfies Record<string, EnvKind>;

const SET_LOCALLY = {
  /** DynamoDB endpoint override (DynamoDB Local on loopback); never set in AWS. */
  DYNAMODB_ENDPOINT: 'optional',
  /** The value-hash pepper itself (the local runtime; in AWS it comes from `KEY_HASH_PEPPER_SECRET_ARN`). */
  KEY_HASH_PEPPER: 'optional',
  /** Write the audit archive as files under this folder instead of to S3. */
  ARCHIVE_DIR: 'optional',
  /** An S3 API on loopback (s3rver) for the archive. */
  S3_ENDPOINT: 'optional',
} as const satisfies Record<string, EnvKind>;

/**
 * Set by Lambda: the region; `AWS_LAMBDA_FUNCTION_NAME`, present only in
 * Lambda (it selects the Lambda-only parts: the tracer, the archiver's
 * handler); where the credential chain looks (lambda/adapters/lambda-credentials.ts).
 */
const SET_BY_LAMBDA = optional(
  'AWS_REGION',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_EC2_METADATA_DISABLED',
);

/** Every variable a function reads, with its kind. */
export const FUNCTION_ENVIRONMENT = { ...SET_BY_THE_STACK, ...SET_LOCALLY, ...SET_BY_LAMBDA } as const;

/** A variable the stack sets on functions. */
export type Env = keyof typeof SET_BY_THE_STACK;
/** Any variable a function reads. */
export type FunctionEnv = keyof typeof FUNCTION_ENVIRONMENT;
/** The variables of one kind. */
export type EnvOfKind<K extends EnvKind> = { [N in FunctionEnv]: (typeof FUNCTION_ENVIRONMENT)[N] extends K ? N : never }[FunctionEnv];

/** The names the stack sets, for lib/ to spell them (`ENV.KEY_TABLE_NAME`). */
export const ENV: { readonly [N in Env]: N } = /* @__PURE__ */ (() => {
  const names: Partial<Record<Env, Env>> = {};
  for (const name of Object.keys(SET_BY_THE_STACK) as Env[]) names[name] = name;
  return names as { readonly [N in Env]: N };
})();
