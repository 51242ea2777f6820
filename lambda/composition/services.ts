/**
 * The composition root: everything a handler's services need, built once
 * per process (a Lambda cold start, a local runtime, a test) from explicit
 * dependencies. Lambda handlers use `environmentServices` (clients and
 * settings from the environment); the local runtime and the tests call
 * `createServices` with their own clock, client and scheduler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceSettings } from '../platform/service-settings';
import type { ProcessMemory } from '../store/process-memory';
import { AuditStore } from '../store/audit-store';
import { GuessCounterStore } from '../store/guess-counter-store';
import { IdempotencyStore } from '../store/idempotency-record';
import { KeyStore } from '../store/key-store';
import { SeenLookups } from '../store/seen-lookups';
import { TeamStore } from '../store/team-store';
import { ValueLookupStore } from '../store/value-lookup-store';
import type { RevocationScheduler } from '../domain/revocation-scheduler';
import { EndedWindows } from '../domain/ended-windows';
import { UsageStore } from '../store/usage-store';
import type { ExpiryScheduler } from '../domain/expiry-notices';
import type { StoreTables } from '../store/transactions';
import { DEFAULT_LEASE_SETTINGS, type LeaseSettings } from '../domain/usage-lease';
import { systemClock, type Clock } from '../platform/clock';
import { RecentMap } from '../platform/recent-map';
import { config } from './config';
import { documentClientOf, createDynamoClient } from './dynamo';
import { environmentObservability, type Observability } from '../platform/observability';
import { loadPepperSecret } from '../adapters/pepper';
import { environmentTracer } from '../platform/tracing';

export type { ServiceSettings } from '../platform/service-settings';
export type { ProcessMemory } from '../store/process-memory';

export interface ServiceDeps {
  readonly db: DynamoDBDocumentClient;
  readonly clock: Clock;
  readonly settings: ServiceSettings;
  /** Schedules the end of grace periods; absent: none (old values still die by the clock). */
  readonly scheduler?: RevocationScheduler;
  /** Schedules expiry notices; absent: none are sent (keys still stop at expires_at). */
  readonly expiry?: ExpiryScheduler;
  /** Logger, metrics and (in Lambda) tracer. */
  readonly observe: Observability;
  /** Work before the first request (in Lambda: the pepper secret); default none. */
  readonly ready?: () => Promise<void>;
  /** Leases on hot keys' rate windows (usage/usage-lease.ts); default `DEFAULT_LEASE_SETTINGS` (on). */
  readonly usageLeases?: Partial<LeaseSettings>;
}

function processMemory(): ProcessMemory {
  const memory = { seenLookups: new SeenLookups(), overGuessLimit: new RecentMap<string, true>(1_000), endedWindows: new EndedWindows() };
  return {
    ...memory,
    reset: () => {
      memory.seenLookups.clear();
      memory.overGuessLimit.clear();
      memory.endedWindows.clear();
    },
  };
}

/** What services use. */
export interface Services {
  readonly clock: Clock;
  readonly settings: ServiceSettings;
  readonly keys: KeyStore;
  readonly lookups: ValueLookupStore;
  readonly teams: TeamStore;
  readonly audit: AuditStore;
  readonly idempotency: IdempotencyStore;
  readonly guesses: GuessCounterStore;
  readonly usage: UsageStore;
  readonly expiry?: ExpiryScheduler;
  /** The tables, for the stores only some functions build (composition/webhook-services.ts, the expiry-notice function). */
  readonly tables: StoreTables;
  readonly memory: ProcessMemory;
  readonly scheduler?: RevocationScheduler;
  readonly observe: Observability;
  /** Resolves when the services may serve (awaited by the first middleware of every handler). */
  ready(): Promise<void>;
}

export function createServices(deps: ServiceDeps): Services {
  const { db, settings } = deps;
  // Read on use: a function without an audit table (verify, authorizer) never asks for its name.
  const tables = {
    db,
    get keyTableName() {
      return settings.keyTableName;
    },
    get auditTableName() {
      return settings.auditTableName;
    },
  };
  const memory = processMemory();
  return {
    clock: deps.clock,
    settings,
    keys: new KeyStore(tables),
    lookups: new ValueLookupStore(tables, memory.seenLookups),
    teams: new TeamStore(tables),
    audit: new AuditStore(tables),
    idempotency: new IdempotencyStore(tables),
    guesses: new GuessCounterStore(tables),
    usage: new UsageStore(tables, memory.endedWindows, { ...DEFAULT_LEASE_SETTINGS, ...deps.usageLeases }),
    expiry: deps.expiry,
    tables,
    memory,
    scheduler: deps.scheduler,
    observe: deps.observe,
    ready: deps.ready ?? (() => Promise.resolve()),
  };
}

let fromEnvironment: Services | undefined;

/**
 * The services of a Lambda function, from its environment; built on first
 * use and kept for the life of the process. No scheduler: the functions that
 * schedule (regenerate, delete) use `schedulingEnvironmentServices`
 * (rotation/scheduling-services.ts), so no other bundle carries the
 * Scheduler client.
 */
export function environmentServices(): Services {
  if (fromEnvironment) return fromEnvironment;
  const tracer = environmentTracer();
  const client = createDynamoClient();
  let pepperLoaded: Promise<void> | undefined;
  fromEnvironment = createServices({
    db: documentClientOf(tracer ? tracer.captureAWSv3Client(client) : client),
    clock: systemClock,
    settings: config,
    observe: environmentObservability(tracer),
    // Once per cold start; a failure is retried on the next request.
    ready: () =>
      (pepperLoaded ??= loadPepperSecret().catch((error: unknown) => {
        pepperLoaded = undefined;
        throw error;
      })),
  });
  return fromEnvironment;
}
