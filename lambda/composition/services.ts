/**
 * Every port at once, for a process that serves every function: the local
 * runtime, the tests and the bench call `createServices` with their own
 * clock, client and adapters (their routes then get exactly their declared
 * ports, `portsOf`). A Lambda function builds only its own
 * (composition/environment.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PortName } from '../contract/ports';
import { PORT_NAMES } from '../contract/port-names';
import type { Clock } from '../platform/clock';
import type { Observability } from '../platform/observability';
import type { ServiceSettings } from '../platform/service-settings';
import type { ExpiryScheduler } from '../domain/expiry-notices';
import type { GithubKeySource } from '../domain/github-signatures';
import type { AnalyticsExport } from '../domain/analytics-export';
import type { RevocationScheduler } from '../domain/revocation-scheduler';
import type { LeaseSettings } from '../domain/usage-lease';
import type { WebhookPorts } from '../domain/webhook-ports';
import type { Wired } from '../store/ports';
import type { CountSettings } from '../store/verification-counts';
import type { StoreTables } from '../store/transactions';
import { tablesOf, webhookAdapterReaders, webhookPortsOf, wire, type Adapters } from './wiring';

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
  /** The webhook adapters (address policy and resolver, secret box, transport, queue); absent: each throws when used. */
  readonly webhookPorts?: () => WebhookPorts;
  /** GitHub's published keys; absent: every partner report is refused. */
  readonly githubKeys?: GithubKeySource;
  /** Where rolled-up hours are exported as Parquet; absent: not exported. */
  readonly analyticsExport?: AnalyticsExport;
  /** Logger, metrics and (in Lambda) tracer. */
  readonly observe: Observability;
  /** Work before the first request; default none. */
  readonly ready?: () => Promise<void>;
  /** Leases on hot keys' rate windows (domain/usage-lease.ts); default `DEFAULT_LEASE_SETTINGS` (on). */
  readonly usageLeases?: Partial<LeaseSettings>;
  /** How long a process holds verification counts before writing them (store/verification-counts.ts); default 20 s. */
  readonly verificationCounts?: Partial<CountSettings>;
}

/** Every port, and the tables (for the tests that build a store of their own). */
export type Services = Wired<typeof PORT_NAMES> & { readonly tables: StoreTables };
/** Services with the webhook ports (every services object has them now). */
export type WebhookServices = Services;

/** The adapters `deps` hands in, as ports. */
function adaptersOf(deps: ServiceDeps): Adapters {
  let built: WebhookPorts | undefined;
  const given = deps.webhookPorts;
  return {
    scheduler: () => deps.scheduler,
    expiry: () => deps.expiry,
    githubKeys: () => deps.githubKeys,
    analyticsExport: () => deps.analyticsExport,
    ...(given && webhookAdapterReaders(() => (built ??= given()))),
  };
}

export function createServices(deps: ServiceDeps): Services {
  const wired = wire(PORT_NAMES, { ...deps, adapters: adaptersOf(deps) });
  return Object.defineProperties(wired, { tables: { value: tablesOf(deps.db, deps.settings), enumerable: true } }) as Services;
}

/**
 * What a function declared with `ports` sees of `services`: the basics and
 * exactly those ports (reading another is undefined, and a webhook adapter
 * it did not declare throws when used), as its Lambda bundle would have. The
 * local runtime and the tests hand routes their ports this way, so a port
 * missing from a declaration fails there too.
 */
export function portsOf<const N extends readonly PortName[]>(services: Services, ports: N): Wired<N> {
  const key = [...ports].sort().join(',');
  const known = views.get(services) ?? new Map<string, unknown>();
  views.set(services, known);
  const view = (known.get(key) as Wired<N> | undefined) ?? viewOf(services, ports);
  known.set(key, view);
  return view;
}

/** The views made so far, one per services object and set of ports (a route's handler asks on every request). */
const views = new WeakMap<Services, Map<string, unknown>>();

function viewOf<const N extends readonly PortName[]>(services: Services, ports: N): Wired<N> {
  const declared = new Set<string>(ports);
  let webhookPorts: WebhookPorts | undefined;
  const view = {
    clock: services.clock,
    settings: services.settings,
    observe: services.observe,
    memory: services.memory,
    ready: () => services.ready(),
    webhookPorts: () => (webhookPorts ??= webhookPortsOf(declaredWebhookPorts(services, declared))),
  };
  for (const name of declared) Object.defineProperty(view, name, { enumerable: true, get: () => services[name as PortName] });
  return view as unknown as Wired<N>;
}

/** The webhook adapters of `services` that were declared, each read on use. */
function declaredWebhookPorts(services: Services, declared: ReadonlySet<string>) {
  const ports = {};
  for (const [name, read] of Object.entries(webhookAdapterReaders(() => services.webhookPorts())))
    if (declared.has(name)) Object.defineProperty(ports, name, { enumerable: true, get: read });
  return ports;
}

/** `services` with other webhook adapters (a bench's or a test's that share one sealing key, say); the rest is read through. */
export function withWebhookPorts(services: Services, ports: () => WebhookPorts): Services {
  let built: WebhookPorts | undefined;
  const webhookPorts = () => (built ??= ports());
  const readers = Object.entries(webhookAdapterReaders(webhookPorts)).map(([name, read]) => [name, { get: read, enumerable: true }]);
  return Object.create(services, { webhookPorts: { value: webhookPorts, enumerable: true }, ...Object.fromEntries(readers) }) as Services;
}

/** `services` with other published GitHub keys; the rest is read through. */
export function withGithubKeys(services: Services, githubKeys: GithubKeySource | undefined): Services {
  return Object.create(services, { githubKeys: { value: githubKeys, enumerable: true } }) as Services;
}
