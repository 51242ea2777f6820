/**
 * Builds a function's ports, exactly the ones named (a route's `ports`, or
 * HANDLER_PORTS' for the other functions; contract/ports.ts), on the
 * dependencies it is handed: the DynamoDB client, the clock, the settings,
 * and the adapters (AWS clients in Lambda, composition/environment.ts; the
 * local runtime's and the tests' own). Stores are built at once, adapters on
 * first use.
 *
 * Each store's builder is behind its bundle flag: in a bundle the CDK app
 * built for a function without that port, the flag is the constant
 * "absent" and esbuild drops the builder and the store's code. Elsewhere
 * every builder is live.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PortName } from '../contract/ports';
import type { Clock } from '../platform/clock';
import type { Observability } from '../platform/observability';
import type { ServiceSettings } from '../platform/service-settings';
import { RecentMap } from '../platform/recent-map';
import { EndedWindows } from '../domain/ended-windows';
import { DEFAULT_LEASE_SETTINGS, KeyLeases, type LeaseSettings } from '../domain/usage-lease';
import type { WebhookPorts } from '../domain/webhook-ports';
import type { MeteredSettler, ProcessMemory } from '../store/process-memory';
import type { FunctionBasics, PortTypes, Wired } from '../store/ports';
import type { StoreTables } from '../store/transactions';
import { AuditStore } from '../store/audit-store';
import { DeliverySlotStore } from '../store/delivery-slots';
import { DeliveryStore } from '../store/delivery-store';
import { ExpiryNoticeStore } from '../store/expiry-notice-store';
import { FlushClaimStore } from '../store/flush-claim-store';
import { GuessCounterStore } from '../store/guess-counter-store';
import { IdempotencyStore } from '../store/idempotency-record';
import { KeyStore } from '../store/key-store';
import { SeenLookups } from '../store/seen-lookups';
import { TeamStore } from '../store/team-store';
import { UsageStore } from '../store/usage-store';
import { ValueLookupStore } from '../store/value-lookup-store';
import { WebhookStore } from '../store/webhook-store';
import { IdentityStore } from '../store/identity-store';
import { CreditStore } from '../store/credit-store';
import { MeteredUses } from '../store/metered-use';
import { UsageMonths } from '../store/usage-months';
import { DEFAULT_COUNT_SETTINGS, VerificationCounts, type CountSettings } from '../store/verification-counts';
import { VerificationAnalytics } from '../store/verification-analytics';
import { AuditChainStore } from '../store/audit-chain-store';

/** The ports that talk to AWS or the network: handed in, built on first use. */
export type AdapterName = 'scheduler' | 'expiry' | 'secrets' | 'policy' | 'queue' | 'retries' | 'post' | 'cacheFlusher' | 'githubKeys' | 'analyticsExport';
type StoreName = Exclude<PortName, AdapterName>;
export type Adapters = { readonly [N in AdapterName]?: () => PortTypes[N] };

export interface WiringDeps {
  readonly db: DynamoDBDocumentClient;
  readonly clock: Clock;
  readonly settings: ServiceSettings;
  /** Logger, metrics and (in Lambda) tracer. */
  readonly observe: Observability;
  /** The adapters this process has; a port named but not handed in is undefined (a scheduler) or throws when used (a webhook adapter). */
  readonly adapters?: Adapters;
  /** Work before the first request (in Lambda: the pepper secret); default none. */
  readonly ready?: () => Promise<void>;
  /** Leases on hot keys' rate windows (domain/usage-lease.ts); default `DEFAULT_LEASE_SETTINGS` (on). */
  readonly usageLeases?: Partial<LeaseSettings>;
  /** How long a process holds verification counts before writing them (store/verification-counts.ts); default 20 s. */
  readonly verificationCounts?: Partial<CountSettings>;
}

interface StoreContext {
  readonly tables: StoreTables;
  readonly memory: ProcessMemory;
  readonly deps: WiringDeps;
}

type StoreBuilders = { readonly [N in StoreName]: ((context: StoreContext) => PortTypes[N]) | undefined };

// One line a store; the flag's name is contract/ports.ts's `portBundleFlag` (a test checks each line).
const STORES: StoreBuilders = {
  keys: process.env.PORT_KEYS_BUNDLE === 'absent' ? undefined : ({ tables }) => new KeyStore(tables),
  lookups: process.env.PORT_LOOKUPS_BUNDLE === 'absent' ? undefined : ({ tables, memory }) => new ValueLookupStore(tables, memory.seenLookups),
  usage:
    process.env.PORT_USAGE_BUNDLE === 'absent'
      ? undefined
      : ({ tables, memory, deps }) =>
          new UsageStore(
            tables,
            memory.endedWindows,
            // The stack replaces HOT_PATH_BUNDLE at bundling time: "off" outside the hot path (lib/house-function.ts `hotPath`), and esbuild drops the leases.
            process.env.HOT_PATH_BUNDLE === 'off' ? undefined : new KeyLeases({ ...DEFAULT_LEASE_SETTINGS, ...deps.usageLeases }),
            memory.meteredSettlers,
          ),
  guesses: process.env.PORT_GUESSES_BUNDLE === 'absent' ? undefined : ({ tables }) => new GuessCounterStore(tables),
  teams: process.env.PORT_TEAMS_BUNDLE === 'absent' ? undefined : ({ tables }) => new TeamStore(tables),
  audit: process.env.PORT_AUDIT_BUNDLE === 'absent' ? undefined : ({ tables }) => new AuditStore(tables),
  idempotency: process.env.PORT_IDEMPOTENCY_BUNDLE === 'absent' ? undefined : ({ tables }) => new IdempotencyStore(tables),
  webhooks: process.env.PORT_WEBHOOKS_BUNDLE === 'absent' ? undefined : ({ tables }) => new WebhookStore(tables),
  identities: process.env.PORT_IDENTITIES_BUNDLE === 'absent' ? undefined : ({ tables, memory }) => new IdentityStore(tables, memory.meteredSettlers),
  credits: process.env.PORT_CREDITS_BUNDLE === 'absent' ? undefined : ({ tables }) => new CreditStore(tables),
  meters:
    process.env.PORT_METERS_BUNDLE === 'absent'
      ? undefined
      : ({ tables, memory, deps }) => {
          const meters = new MeteredUses(tables, new UsageMonths(tables), deps.clock, { ...DEFAULT_LEASE_SETTINGS, ...deps.usageLeases });
          memory.meteredSettlers.add(meters);
          return meters;
        },
  deliveries: process.env.PORT_DELIVERIES_BUNDLE === 'absent' ? undefined : ({ tables }) => new DeliveryStore(tables),
  slots: process.env.PORT_SLOTS_BUNDLE === 'absent' ? undefined : ({ tables }) => new DeliverySlotStore(tables),
  expiryNotices: process.env.PORT_EXPIRY_NOTICES_BUNDLE === 'absent' ? undefined : ({ tables }) => new ExpiryNoticeStore(tables),
  flushClaims: process.env.PORT_FLUSH_CLAIMS_BUNDLE === 'absent' ? undefined : ({ tables }) => new FlushClaimStore(tables),
  counts:
    process.env.PORT_COUNTS_BUNDLE === 'absent'
      ? undefined
      : ({ tables, deps }) => new VerificationCounts(tables, deps.clock, { ...DEFAULT_COUNT_SETTINGS, ...deps.verificationCounts }),
  analytics: process.env.PORT_ANALYTICS_BUNDLE === 'absent' ? undefined : ({ tables }) => new VerificationAnalytics(tables),
  chains: process.env.PORT_CHAINS_BUNDLE === 'absent' ? undefined : ({ tables }) => new AuditChainStore(tables),
};

/** A port with no store builder (every store has its line in STORES, flagged out or not) is an adapter. */
const isAdapter = (name: PortName): name is AdapterName => !Object.hasOwn(STORES, name);

/** The process's memory of recent lookups, guesses and ended windows (one per process, shared by its requests). */
export function processMemory(): ProcessMemory {
  const memory = {
    seenLookups: new SeenLookups(),
    overGuessLimit: new RecentMap<string, true>(1_000),
    endedWindows: new EndedWindows(),
    meteredSettlers: new Set<MeteredSettler>(),
    oldValueUses: new RecentMap<string, number>(1_000),
    newValueMarked: new RecentMap<string, true>(1_000),
    oldValueSources: new RecentMap<string, Set<string>>(1_000),
  };
  return {
    ...memory,
    reset: () => {
      memory.seenLookups.clear();
      memory.overGuessLimit.clear();
      memory.endedWindows.clear();
      memory.oldValueUses.clear();
      memory.newValueMarked.clear();
      memory.oldValueSources.clear();
    },
  };
}

/** The tables the stores write, their names read on use (a function without an audit table never asks for its name). */
export function tablesOf(db: DynamoDBDocumentClient, settings: Pick<ServiceSettings, 'keyTableName' | 'auditTableName'>): StoreTables {
  return {
    db,
    get keyTableName() {
      return settings.keyTableName;
    },
    get auditTableName() {
      return settings.auditTableName;
    },
  };
}

/** The webhook adapters among `ports`, as the webhook use cases read them: one missing throws when used. */
export function webhookPortsOf(ports: Partial<Pick<PortTypes, 'secrets' | 'policy' | 'queue' | 'post'>>): WebhookPorts {
  const missing = (name: string): never => {
    throw new Error(`this function has no webhook ${name} configured`);
  };
  return {
    get policy() {
      return ports.policy?.policy ?? missing('address policy');
    },
    get resolve() {
      return ports.policy?.resolve ?? missing('resolver');
    },
    get secrets() {
      return ports.secrets ?? missing('secret box');
    },
    get post() {
      return ports.post ?? missing('transport');
    },
    get queue() {
      return ports.queue ?? missing('queue');
    },
  };
}

type WebhookAdapterName = 'secrets' | 'policy' | 'queue' | 'post';

/** The webhook adapters, each read from `webhookPorts()` on use: the ports of contract/ports.ts made of the shape the webhook use cases read. */
export function webhookAdapterReaders(webhookPorts: () => WebhookPorts): { readonly [N in WebhookAdapterName]: () => PortTypes[N] } {
  return {
    secrets: () => webhookPorts().secrets,
    policy: () => ({ policy: webhookPorts().policy, resolve: webhookPorts().resolve }),
    queue: () => webhookPorts().queue,
    post: () => webhookPorts().post,
  };
}

/** Defines `name` on `target` as a getter that builds once, on first read. */
function defineLazy(target: object, name: string, build: () => unknown): void {
  let built: { value: unknown } | undefined;
  Object.defineProperty(target, name, { enumerable: true, get: () => (built ??= { value: build() }).value });
}

/** Exactly the ports `names`, with the basics every function has. */
export function wire<const N extends readonly PortName[]>(names: N, deps: WiringDeps, memory: ProcessMemory = processMemory()): Wired<N> {
  const context: StoreContext = { tables: tablesOf(deps.db, deps.settings), memory, deps };
  const ports: Record<string, unknown> = {};
  for (const name of new Set(names)) {
    if (isAdapter(name)) {
      const adapter = deps.adapters?.[name];
      defineLazy(ports, name, () => adapter?.());
      continue;
    }
    const build = STORES[name];
    if (!build) throw new Error(`port ${name} was left out of this bundle: declare it in the function's ports`);
    ports[name] = build(context);
  }
  let webhookPorts: WebhookPorts | undefined;
  const basics: FunctionBasics = {
    clock: deps.clock,
    settings: deps.settings,
    observe: deps.observe,
    memory,
    ready: deps.ready ?? (() => Promise.resolve()),
    webhookPorts: () => (webhookPorts ??= webhookPortsOf(ports as Partial<PortTypes>)),
  };
  // Descriptors, not values: an adapter's getter stays lazy.
  return Object.defineProperties({ ...basics }, Object.getOwnPropertyDescriptors(ports)) as Wired<N>;
}
