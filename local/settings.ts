/**
 * `npm start`'s settings: the environment it reads (declared once, its
 * --help printed from it), checked into `LocalSettings`, and the lines it
 * prints once the runtime is up.
 */
import path from 'node:path';
import { DEFAULT_PLAN_RATE_LIMIT, DEFAULT_WRITE_THROTTLE } from '../lambda/contract/defaults';
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import type { UsagePlans } from '../lambda/contract/plans';
import { plansFrom } from './usage-plans';
import { routeScopesFromEnv } from '../lambda/handlers/authorizer';
import type { RouteScope } from '../lambda/contract/route-scopes';
import { DEFAULT_CACHE_TTL_SECONDS, MAX_CACHE_TTL_SECONDS } from './platform-stage';

/** `.data/` at the repository root. */
export const DEFAULT_DATA_DIR = path.resolve(__dirname, '..', '.data');

export interface LocalSettings {
  readonly port: number;
  readonly host: string;
  /** Absolute path; DynamoDB Local keeps its file under `<dataDir>/dynamodb`. */
  readonly dataDir: string;
  readonly keyTableName: string;
  readonly auditTableName: string;
  /** Fixed DynamoDB Local port, or undefined for a free one. */
  readonly dynamoPort?: number;
  /** Default `rate_limit` of keys created without one (`PLAN_RATE_LIMIT`). */
  readonly planRateLimit: number;
  /** Usage plans the gateway stage enforces (`USAGE_PLANS`, else cdk.json's `plans`). */
  readonly plans: UsagePlans;
  /** Webhooks may target loopback (`WEBHOOK_ALLOW_LOOPBACK`, default true); false: as in AWS. */
  readonly webhookAllowLoopback: boolean;
  /** The platform stage's authorizer result TTL in seconds (`AUTHORIZER_CACHE_TTL`, default 300; 0: no cache). */
  readonly authorizerCacheTtl: number;
  /** The platform authorizer's route table (`AUTHORIZER_SCOPE`, `AUTHORIZER_ROUTE_SCOPES`), read as the deployed authorizer reads it. */
  readonly routeScopes: readonly RouteScope[];
  /** How often the verification analytics' hours are rolled up (`ANALYTICS_ROLLUP_SECONDS`, default 300; docs/analytics.md). */
  readonly analyticsRollupSeconds: number;
  /** How often the teams' audit chains that moved are checkpointed (`AUDIT_CHECKPOINT_SECONDS`, default 60; the deployed job runs hourly; docs/audit.md). */
  readonly auditCheckpointSeconds: number;
}

/** A setting that cannot be used: printed as one line, exit code 2. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

function portFrom(env: LocalEnvironment, name: LocalEnv, fallback: number | undefined): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new SettingsError(`${name} must be a port number (0-65535), got "${raw}"`);
  return value;
}

/** The directory `DATA_DIR` names (relative to the working directory), or the default. */
export function dataDirFrom(env: LocalEnvironment = process.env): string {
  return env.DATA_DIR ? path.resolve(env.DATA_DIR) : DEFAULT_DATA_DIR;
}

/** DynamoDB Local's store inside a data directory. */
export function dynamoDbPath(dataDir: string): string {
  return path.join(dataDir, 'dynamodb');
}

/**
 * The local checkpoint job's default period: a minute, so that a trail
 * changed on this machine can be checked against a signed checkpoint (the
 * README's walk-through waits for it) without an hour's wait. The deployed
 * job runs hourly (lib/audit-checkpoints.ts); locally a run signs only the
 * chains that moved, and costs nothing.
 */
export const LOCAL_CHECKPOINT_SECONDS = 60;

/** Reads and checks the settings; throws SettingsError on a bad value. */
export function readSettings(env: LocalEnvironment = process.env): LocalSettings {
  const planRateLimit = env.PLAN_RATE_LIMIT;
  if (planRateLimit !== undefined && planRateLimit !== '' && !/^[1-9][0-9]*$/.test(planRateLimit)) {
    throw new SettingsError(`PLAN_RATE_LIMIT must be a positive integer, got "${planRateLimit}"`);
  }
  const allowLoopback = env.WEBHOOK_ALLOW_LOOPBACK;
  if (allowLoopback !== undefined && allowLoopback !== '' && allowLoopback !== 'true' && allowLoopback !== 'false') {
    throw new SettingsError(`WEBHOOK_ALLOW_LOOPBACK must be true or false, got "${allowLoopback}"`);
  }
  const cacheTtl = env.AUTHORIZER_CACHE_TTL;
  if (cacheTtl !== undefined && cacheTtl !== '' && !(/^(0|[1-9][0-9]*)$/.test(cacheTtl) && Number(cacheTtl) <= MAX_CACHE_TTL_SECONDS)) {
    throw new SettingsError(`AUTHORIZER_CACHE_TTL must be a whole number of seconds from 0 to ${MAX_CACHE_TTL_SECONDS}, got "${cacheTtl}"`);
  }
  const rollup = env.ANALYTICS_ROLLUP_SECONDS;
  if (rollup !== undefined && rollup !== '' && !(/^[1-9][0-9]{0,4}$/.test(rollup) && Number(rollup) <= 3600)) {
    throw new SettingsError(`ANALYTICS_ROLLUP_SECONDS must be a whole number of seconds from 1 to 3600, got "${rollup}"`);
  }
  const checkpoints = env.AUDIT_CHECKPOINT_SECONDS;
  if (checkpoints !== undefined && checkpoints !== '' && !(/^[1-9][0-9]{0,4}$/.test(checkpoints) && Number(checkpoints) <= 86400)) {
    throw new SettingsError(`AUDIT_CHECKPOINT_SECONDS must be a whole number of seconds from 1 to 86400, got "${checkpoints}"`);
  }
  let routeScopes: RouteScope[];
  try {
    routeScopes = routeScopesFromEnv({ AUTHORIZER_SCOPE: env.AUTHORIZER_SCOPE, AUTHORIZER_ROUTE_SCOPES: env.AUTHORIZER_ROUTE_SCOPES });
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  return {
    authorizerCacheTtl: cacheTtl ? Number(cacheTtl) : DEFAULT_CACHE_TTL_SECONDS,
    routeScopes,
    analyticsRollupSeconds: rollup ? Number(rollup) : 300,
    auditCheckpointSeconds: checkpoints ? Number(checkpoints) : LOCAL_CHECKPOINT_SECONDS,
    webhookAllowLoopback: allowLoopback !== 'false',
    port: portFrom(env, 'PORT', 3000) as number,
    host: env.HOST || '127.0.0.1',
    dataDir: dataDirFrom(env),
    keyTableName: env.KEY_TABLE_NAME || KEY_TABLE.logicalName,
    auditTableName: env.AUDIT_TABLE_NAME || AUDIT_TABLE.logicalName,
    dynamoPort: portFrom(env, 'DYNAMODB_PORT', undefined),
    planRateLimit: planRateLimit ? Number(planRateLimit) : DEFAULT_PLAN_RATE_LIMIT,
    plans: (() => {
      try {
        return plansFrom(env);
      } catch (error) {
        throw new SettingsError((error as Error).message);
      }
    })(),
  };
}

/**
 * The local runtime's environment, declared once: `--help` is printed from
 * it, and every variable `npm start` reads is one of these (readSettings,
 * the archive part, and the functions' own, lambda/contract/function-environment.ts).
 */
export const LOCAL_ENVIRONMENT = [
  { name: 'PORT', help: 'port of the HTTP API (default 3000; 0 picks a free one)' },
  { name: 'HOST', help: 'interface to bind (default 127.0.0.1, loopback only)' },
  { name: 'DATA_DIR', help: 'where keys, usage, audit records and the archive live (default .data/)' },
  { name: 'DYNAMODB_PORT', help: 'port of DynamoDB Local (default: a free one)' },
  { name: 'KEY_TABLE_NAME', help: `key table (default ${KEY_TABLE.logicalName})` },
  { name: 'AUDIT_TABLE_NAME', help: `audit table (default ${AUDIT_TABLE.logicalName})` },
  { name: 'PLAN_RATE_LIMIT', help: `default rate_limit of new keys, requests per hour (default ${DEFAULT_PLAN_RATE_LIMIT})` },
  {
    name: 'USAGE_PLANS',
    help: `usage plans as JSON (default: cdk.json's "plans"), e.g.\n'{"default":{"rateLimit":1,"burstLimit":3,"quota":{"limit":8,"period":"DAY"}}}'`,
  },
  {
    name: 'GITHUB_SECRET_SCANNING_KEYS',
    help: 'GitHub\'s secret-scanning public keys, as GitHub publishes them:\n\'{"public_keys":[{"key_identifier":"…","key":"-----BEGIN PUBLIC KEY-----…","is_current":true}]}\'\n(unset: every GitHub secret-scanning report is refused; nothing is fetched)',
  },
  {
    name: 'AUTHORIZER_CACHE_TTL',
    help: 'seconds the /platform/<path> stage keeps an authorizer answer per Authorization header\n(default 300, as API Gateway; 0: no cache; at most 3600); revocations flush it',
  },
  { name: 'AUTHORIZER_SCOPE', help: 'a scope the platform authorizer requires on every /platform/ route' },
  {
    name: 'AUTHORIZER_ROUTE_SCOPES',
    help: 'the platform authorizer\'s route table, e.g. \'{"GET /tiles/*":"enc.tiles:read"}\'\n(unset: any valid key is allowed everywhere)',
  },
  { name: 'ANALYTICS_ROLLUP_SECONDS', help: 'how often verification counts are rolled up by hour and day (default 300, as the deployed function)' },
  {
    name: 'AUDIT_CHECKPOINT_SECONDS',
    help: "how often the teams' audit chains that moved are checkpointed and signed (default 60; the deployed function runs hourly)",
  },
  { name: 'ARCHIVE_DIR', help: 'write the audit archive as files here instead of the S3 API' },
  { name: 'KEY_HASH_PEPPER', help: 'HMAC pepper of stored value hashes (set once, or never)' },
  {
    name: 'WEBHOOK_ALLOW_LOOPBACK',
    help: 'webhook endpoints may be on 127.0.0.1/::1 (default true); false refuses them as AWS does\n(private and link-local targets are refused either way)',
  },
  {
    name: 'ORIGIN_VERIFY_SECRET',
    help: "take the caller from X-Viewer-Address on requests whose X-Origin-Verify is this\n(as behind the console's CloudFront); unset: always the connection",
  },
  {
    name: 'POWERTOOLS_LOG_LEVEL',
    help: 'lowest level logged: DEBUG, INFO (default), WARN, ERROR',
    note: 'Output: readable lines on a terminal, the JSON lines Lambda writes when piped.',
  },
] as const;

/** A variable `npm start` reads. */
export type LocalEnv = (typeof LOCAL_ENVIRONMENT)[number]['name'];
/** The environment as `npm start` may read it: declared names only. */
export type LocalEnvironment = Readonly<Partial<Record<LocalEnv, string>>>;

/** `npm start -- --help`: every setting. */
const helpLines = (): string[] => {
  const width = Math.max(...LOCAL_ENVIRONMENT.filter(({ name }) => name.length <= 16).map(({ name }) => name.length)) + 2;
  return LOCAL_ENVIRONMENT.flatMap((entry) => {
    const [first, ...rest] = entry.help.split('\n');
    const column = entry.name.length < width ? width : entry.name.length + 2;
    return [
      `  ${entry.name.padEnd(column)}${first}`,
      ...rest.map((line) => `${' '.repeat(2 + column)}${line}`),
      ...('note' in entry ? [`  ${entry.note}`] : []),
    ];
  });
};

export const START_HELP = `Usage: npm start [-- --help]

Runs the whole API key service on this machine (DynamoDB Local, the audit
archive on an S3 API on loopback, the revocation scheduler, the HTTP API).
Settings are environment variables:

${helpLines().join('\n')}

Then: npm run bootstrap -- --team-id <uuid>   (a team's first key; --help for its options)
`;

/** The lines printed once the runtime is up: where it is, where the data is, what to do next. */
export function startBanner(url: string, settings: LocalSettings, dynamoEndpoint: string | undefined): string {
  const plans = Object.entries(settings.plans)
    .map(
      ([name, plan]) =>
        `${name} (${plan.rateLimit}/s, burst ${plan.burstLimit}${plan.quota ? `, ${plan.quota.limit} a ${plan.quota.period.toLowerCase()}` : ''})`,
    )
    .join('; ');
  return [
    `API key service listening on ${url}`,
    `  data:  ${settings.dataDir} (DynamoDB Local on ${dynamoEndpoint})`,
    `  plans: ${plans}`,
    `  writes: ${DEFAULT_WRITE_THROTTLE.rateLimit}/s, burst ${DEFAULT_WRITE_THROTTLE.burstLimit} per team on the routes that write (or the plan's throttle if lower)`,
    `  console: ${url}/console/   reference: ${url}/docs   OpenAPI: ${url}/openapi.json`,
    `  next:  npm run bootstrap -- --team-id <uuid>   (a team's first key, printed once)`,
    '  Ctrl-C to stop.',
  ].join('\n');
}
