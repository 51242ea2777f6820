/**
 * `npm start`: the whole service on one machine, no AWS account.
 *
 * The runtime is a list of parts started in order and stopped in reverse:
 * lock the data directory, DynamoDB Local (persisted under
 * `<DATA_DIR>/dynamodb`), the tables, the revocation scheduler, the audit
 * archive (stream → S3 API on loopback), the HTTP API.
 *
 * Environment: PORT (3000), HOST (127.0.0.1), DATA_DIR (`.data/` in the repo),
 * KEY_TABLE_NAME (api-keys), AUDIT_TABLE_NAME (api-key-audit),
 * DYNAMODB_PORT (a free port), PLAN_RATE_LIMIT (see lambda/composition/config.ts),
 * USAGE_PLANS (JSON; else cdk.json's `plans`; see local/usage-plans.ts).
 */
import path from 'node:path';
import { DEFAULT_PLAN_RATE_LIMIT } from '../lambda/contract/defaults';
import { AUDIT_TABLE, KEY_TABLE } from '../lambda/contract/tables';
import {
  JavaNotFoundError,
  DataDirInUseError,
  DynamoPortInUseError,
  claimDataDir,
  localDynamoClient,
  startDynamoLocal,
  type DataDirClaim,
  type DynamoLocal,
} from './dynamodb-local';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { makeHandler as makeExpireHandler } from '../lambda/handlers/expire-old-value';
import { config } from '../lambda/composition/config';
import { documentClientOf } from '../lambda/composition/dynamo';
import { createServices } from '../lambda/composition/services';
import { localPages } from './pages';
import { createLocalServer, moduleHandlerLoader, type LocalServer } from './server';
import { makeHandler as makeManagementAuthorizer } from '../lambda/handlers/management-authorizer';
import { makeHandler as makeArchiveHandler } from '../lambda/handlers/archive-audit';
import type { ArchiveTarget } from '../lambda/platform/archive-config';
import type { UsagePlans } from '../lambda/contract/plans';
import { createPlanGateway, plansFrom, type ManagementAuthorizer } from './usage-plans';
import { ensureTables } from './tables';
import { createLocalScheduler } from './scheduler';
import { systemClock } from '../lambda/platform/clock';
import { LOCAL_ARCHIVE_BUCKET, startLocalS3 } from './s3-local';
import { startAuditStreamArchiver } from './audit-stream';
import type { Observability } from '../lambda/platform/observability';
import { terminalObservability } from './terminal-observability';
import { keepRunningOnStrayRejections } from './stray-rejections';
import { localCursorKey, localWebhooks, webhookEventsPart } from './webhooks';
import { localExpiryScheduler } from './expiry';
import { withWebhooks, type WebhookServices } from '../lambda/composition/webhook-services';
import { localGithubKeys } from '../lambda/composition/github-keys';
import { authorizerWith, routeScopesFromEnv } from '../lambda/handlers/authorizer';
import { makeHandler as makePublishHandler } from '../lambda/handlers/publish-events';
import type { RouteScope } from '../lambda/contract/route-scopes';
import { flushOwnCacheAfter } from '../lambda/handlers/flush-authorizer-cache';
import { DEFAULT_CACHE_TTL_SECONDS, MAX_CACHE_TTL_SECONDS, createPlatformStage, type PlatformStage } from './platform-stage';

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
  let routeScopes: RouteScope[];
  try {
    routeScopes = routeScopesFromEnv({ AUTHORIZER_SCOPE: env.AUTHORIZER_SCOPE, AUTHORIZER_ROUTE_SCOPES: env.AUTHORIZER_ROUTE_SCOPES });
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  return {
    authorizerCacheTtl: cacheTtl ? Number(cacheTtl) : DEFAULT_CACHE_TTL_SECONDS,
    routeScopes,
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

/** GitHub's keys as `GITHUB_SECRET_SCANNING_KEYS` pins them (none when unset); a document that cannot be read stops the start. */
function githubKeysOf(env: LocalEnvironment): ReturnType<typeof localGithubKeys> {
  try {
    return localGithubKeys({ GITHUB_SECRET_SCANNING_KEYS: env.GITHUB_SECRET_SCANNING_KEYS });
  } catch (error) {
    throw new SettingsError(`GITHUB_SECRET_SCANNING_KEYS must be GitHub's keys document ({"public_keys":[…]}): ${(error as Error).message}`);
  }
}

/** What the parts have started so far; each part adds its own piece. */
export interface LocalRuntimeContext {
  readonly settings: LocalSettings;
  /** The functions' logger and metrics: readable on a terminal, Lambda's JSON lines otherwise. */
  readonly observe: Observability;
  /** The runtime's own lines (access log, scheduler, stream poller): same output, no function's Lambda context. */
  readonly runtimeLog: Observability['logger'];
  dataDirClaim?: DataDirClaim;
  dynamo?: DynamoLocal;
  services?: WebhookServices;
  /** The platform API behind the platform authorizer (`/platform/<path>`). */
  platformStage?: PlatformStage;
  server?: LocalServer;
}

/** Stops what a part started. */
export type StopPart = () => Promise<void> | void;

/** One piece of the local runtime. */
export interface LocalRuntimePart {
  readonly name: string;
  start(context: LocalRuntimeContext): Promise<StopPart | void>;
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not started: check the order of LOCAL_RUNTIME_PARTS`);
  return value;
}

/** Only one process may open a data directory's DynamoDB store: `<DATA_DIR>/runtime.json`. */
export const dataDirPart: LocalRuntimePart = {
  name: 'data directory',
  async start(context) {
    const claim = claimDataDir(context.settings.dataDir, 'start');
    context.dataDirClaim = claim;
    return () => claim.release();
  },
};

/**
 * DynamoDB Local, then the environment the handlers read (set before any
 * handler module is imported: the server imports them on first request).
 */
export const dynamoLocalPart: LocalRuntimePart = {
  name: 'DynamoDB Local',
  async start(context) {
    const { settings } = context;
    const dynamo = await startDynamoLocal({ port: settings.dynamoPort, dbPath: dynamoDbPath(settings.dataDir) });
    context.dynamo = dynamo;
    context.dataDirClaim?.update({
      dynamodbEndpoint: dynamo.endpoint,
      keyTableName: settings.keyTableName,
      auditTableName: settings.auditTableName,
    });
    return () => dynamo.stop();
  },
};

/** The key and audit tables, from lambda/contract/tables.ts. */
export const tablesPart: LocalRuntimePart = {
  name: 'tables',
  async start(context) {
    const client = localDynamoClient(required(context.dynamo, 'DynamoDB Local').endpoint);
    try {
      await ensureTables(client, { keyTable: context.settings.keyTableName, auditTable: context.settings.auditTableName });
    } finally {
      client.destroy();
    }
  },
};

/**
 * The services every handler runs with, built once: this runtime's own
 * DynamoDB Local (never an engine named by the environment), the system
 * clock, and the local revocation scheduler: in-process timers in place of
 * EventBridge Scheduler, invoking the expire function's handler as the
 * schedule would. On start it re-arms every key in transition and expires at
 * once those whose grace period ended while the service was stopped.
 */
export const servicesPart: LocalRuntimePart = {
  name: 'services and revocation scheduler',
  async start(context) {
    const { settings } = context;
    const client = localDynamoClient(required(context.dynamo, 'DynamoDB Local').endpoint);
    const db = documentClientOf(client);
    const expireHandler = makeExpireHandler(() => services);
    const webhooks = localWebhooks({ settings, clock: systemClock, services: () => services, logger: context.runtimeLog });
    const expiry = localExpiryScheduler({
      clock: systemClock,
      services: () => services,
      file: path.join(settings.dataDir, 'expiry-notices.json'),
      logger: context.runtimeLog,
    });
    const scheduler = createLocalScheduler({
      logger: context.runtimeLog,
      clock: systemClock,
      expire: (request) => expireHandler({ key_id: request.keyId, generation: request.generation }, { awsRequestId: `local-${randomUUID()}` } as Context),
    });
    const services = withWebhooks(
      createServices({
        db,
        clock: systemClock,
        scheduler,
        expiry,
        settings: {
          keyTableName: settings.keyTableName,
          auditTableName: settings.auditTableName,
          planRateLimit: settings.planRateLimit,
          guessLimitPerMinute: config.guessLimitPerMinute,
          pepper: config.pepper,
          cursorSigningKey: localCursorKey(settings.dataDir),
        },
        observe: context.observe,
      }),
      () => webhooks.ports,
    );
    // GitHub's keys: the pinned document, or none (a laptop never fetches them).
    Object.assign(services, { githubKeys: githubKeysOf(process.env) });
    context.services = services;
    const summary = await scheduler.rearmFromStore({ db, keyTableName: settings.keyTableName });
    if (summary.armed + summary.firedAtOnce > 0) {
      console.info(`Revocation scheduler: ${summary.armed} transition(s) armed, ${summary.firedAtOnce} expired at once`);
    }
    return async () => {
      // Uses admitted from hot keys' leases and not written yet (the HTTP server has stopped before this part).
      await services.usage.flushPending().catch((error: unknown) => context.runtimeLog.warn('pending uses not written', { error: String(error) }));
      await scheduler.stop();
      await webhooks.queue.stop();
      await expiry.queue.stop();
      client.destroy();
    };
  },
};

/**
 * The audit archive: DynamoDB Local's stream of the audit table feeds the
 * same archiver Lambda runs in AWS; objects go to an S3 API on loopback
 * (s3rver, data under `<DATA_DIR>/s3`), or to the folder `ARCHIVE_DIR` when
 * that is set. A checkpoint file makes restarts lose and repeat nothing.
 */
export const auditArchivePart: LocalRuntimePart = {
  name: 'audit archive',
  async start(context) {
    const { settings } = context;
    let stopS3: (() => Promise<void>) | undefined;
    let target: ArchiveTarget;
    const env: LocalEnvironment = process.env;
    if (env.ARCHIVE_DIR) {
      target = { kind: 'folder', directory: path.resolve(env.ARCHIVE_DIR) };
      console.info(`Audit archive: folder ${target.directory}`);
    } else {
      const s3 = await startLocalS3({ directory: path.join(settings.dataDir, 's3') });
      target = { kind: 's3', bucket: LOCAL_ARCHIVE_BUCKET, endpoint: s3.endpoint };
      stopS3 = () => s3.stop();
      console.info(`Audit archive: S3 API on ${s3.endpoint}, bucket ${LOCAL_ARCHIVE_BUCKET} (files under ${path.join(settings.dataDir, 's3')})`);
    }
    // The very archiver the stack deploys, given this runtime's target (no environment writes).
    const handler = makeArchiveHandler(target, context.observe);
    const archiver = await startAuditStreamArchiver({
      dynamoEndpoint: required(context.dynamo, 'DynamoDB Local').endpoint,
      auditTableName: settings.auditTableName,
      handler,
      logger: context.runtimeLog,
      checkpointFile: path.join(settings.dataDir, 'audit-stream-checkpoint.json'),
    });
    return async () => {
      await archiver.stop();
      await stopS3?.();
    };
  },
};

/**
 * A platform API behind the platform authorizer, with API Gateway's result
 * cache (`/platform/<path>`, local/platform-stage.ts), and what flushes it:
 * the lifecycle events that stop a key, read from the audit stream as the
 * stack's rule reads them from the bus. Clearing a map costs nothing, so
 * every such event clears it (AWS coalesces its API calls to one a second).
 */
export const platformStagePart: LocalRuntimePart = {
  name: 'platform stage',
  async start(context) {
    const services = required(context.services, 'services');
    const { settings } = context;
    const stage = createPlatformStage({
      authorizer: authorizerWith(
        () => settings.routeScopes,
        () => services,
      ) as unknown as Parameters<typeof createPlatformStage>[0]['authorizer'],
      ttlSeconds: settings.authorizerCacheTtl,
      clock: systemClock,
    });
    const flushing = makePublishHandler(async (events) => {
      await flushOwnCacheAfter(() => stage.flush(), events);
    }, context.observe);
    // Read the stream only once the stage is used (most runs never call it), and answer only once the records
    // already there are read: every record after that is a change that a kept answer may predate.
    let reader: Promise<{ stop(): Promise<void> }> | undefined;
    const startReader = () =>
      (reader ??= startAuditStreamArchiver({
        dynamoEndpoint: required(context.dynamo, 'DynamoDB Local').endpoint,
        auditTableName: settings.auditTableName,
        handler: flushing,
        logger: context.runtimeLog,
        // A kept answer outlives a revocation by at most this (plus the read).
        pollMs: 200,
      }).then(async (started) => {
        await started.drain();
        return started;
      }));
    context.platformStage = {
      answer: async (request) => {
        await startReader();
        return stage.answer(request);
      },
      flush: () => stage.flush(),
      get size() {
        return stage.size;
      },
    };
    return async () => {
      await (await reader)?.stop();
    };
  },
};

/** The API on HOST:PORT; one log line per request. */
export const httpServerPart: LocalRuntimePart = {
  name: 'HTTP server',
  async start(context) {
    const { settings } = context;
    const services = required(context.services, 'services');
    const client = localDynamoClient(required(context.dynamo, 'DynamoDB Local').endpoint);
    const gateway = createPlanGateway({
      plans: settings.plans,
      authorizer: makeManagementAuthorizer(() => services) as unknown as ManagementAuthorizer,
      client,
      keyTableName: settings.keyTableName,
      clock: systemClock,
    });
    const server = await createLocalServer({
      port: settings.port,
      host: settings.host,
      loadHandler: moduleHandlerLoader(() => services),
      gateway,
      logger: context.runtimeLog,
      logRequest: (entry) => context.runtimeLog.info('request', { ...entry }),
      pages: await localPages(),
      platform: context.platformStage ? (request) => (context.platformStage as PlatformStage).answer(request) : undefined,
    });
    context.server = server;
    context.dataDirClaim?.update({ baseUrl: server.url });
    return async () => {
      await server.close();
      client.destroy();
    };
  },
};

/** The parts `npm start` runs, in start order. */
export const LOCAL_RUNTIME_PARTS: readonly LocalRuntimePart[] = [
  dataDirPart,
  dynamoLocalPart,
  tablesPart,
  servicesPart,
  auditArchivePart,
  webhookEventsPart,
  platformStagePart,
  httpServerPart,
];

export interface LocalRuntime {
  readonly context: LocalRuntimeContext;
  /** Stops every started part in reverse order. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `parts` in order. If one fails, the ones already started are
 * stopped before the error is rethrown.
 */
export async function startLocalRuntime(
  settings: LocalSettings,
  parts: readonly LocalRuntimePart[] = LOCAL_RUNTIME_PARTS,
  observe: Observability = terminalObservability(),
  runtimeLog: Observability['logger'] = terminalObservability().logger,
): Promise<LocalRuntime> {
  const context: LocalRuntimeContext = { settings, observe, runtimeLog };
  const stops: Array<{ name: string; stop: StopPart }> = [];
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      for (const { name, stop: stopPart } of stops.reverse()) {
        try {
          await stopPart();
        } catch (error) {
          console.error(`Stopping ${name} failed: ${(error as Error).message}`);
        }
      }
    })();
    return stopping;
  };

  for (const part of parts) {
    try {
      const stopPart = await part.start(context);
      if (stopPart) stops.push({ name: part.name, stop: stopPart });
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return { context, stop };
}

/** Errors whose message is the whole story (no stack trace for the operator). */
export function isOperatorError(error: unknown): error is Error {
  return error instanceof JavaNotFoundError || error instanceof DataDirInUseError || error instanceof SettingsError || error instanceof DynamoPortInUseError;
}

/** `npm start -- --help`: every setting. */
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
    `  console: ${url}/console/   reference: ${url}/docs   OpenAPI: ${url}/openapi.json`,
    `  next:  npm run bootstrap -- --team-id <uuid>   (a team's first key, printed once)`,
    '  Ctrl-C to stop.',
  ].join('\n');
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.info(START_HELP);
    process.exit(0);
  }
  let runtime: LocalRuntime | undefined;
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled || runtime === undefined) {
      // A second Ctrl-C, or one during start-up: stop waiting. The `exit`
      // hooks still kill Java and free DATA_DIR.
      process.exit(runtime === undefined ? 130 : 1);
    }
    signalled = true;
    console.info(`${signal} received, stopping`);
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  keepRunningOnStrayRejections(terminalObservability().logger);

  try {
    runtime = await startLocalRuntime(readSettings());
  } catch (error) {
    if (isOperatorError(error)) {
      console.error(error.message);
      process.exit(error instanceof SettingsError ? 2 : 1);
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`Port already in use: ${(error as Error).message}. Set PORT to another port.`);
      process.exit(1);
    }
    throw error;
  }

  const { dynamo, server, settings } = runtime.context;
  console.info(startBanner(server?.url ?? '', settings, dynamo?.endpoint));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error('Local runtime failed to start:', error);
    process.exit(1);
  });
}
