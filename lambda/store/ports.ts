/**
 * The parts a use case's port is made of, one store or one dependency each,
 * under the name composition gives it. A use case exports its port as the
 * intersection of the parts it uses (`KeysPort & ClockPort`, say), so its
 * signature shows what it touches; composition's services satisfy every
 * port, and nothing below composition/ names them.
 */
import type { Clock } from '../platform/clock';
import type { Observability } from '../platform/observability';
import type { ServiceSettings } from '../platform/service-settings';
import type { ExpiryScheduler } from '../domain/expiry-notices';
import type { RevocationScheduler } from '../domain/revocation-scheduler';
import type { DeliveryQueue, WebhookPorts, WebhookPoster } from '../domain/webhook-ports';
import type { AddressPolicy, Resolver } from '../platform/address-policy';
import type { SecretBox } from '../platform/secret-box';
import type { CacheFlusher } from '../domain/cache-flusher';
import type { GithubKeySource } from '../domain/github-signatures';
import type { AnalyticsExport } from '../domain/analytics-export';
import type { HANDLER_PORTS, PortName } from '../contract/ports';
import type { ProcessMemory } from './process-memory';
import type { ExpiryNoticeStore } from './expiry-notice-store';
import type { FlushClaimStore } from './flush-claim-store';
import type { GuessCounterStore } from './guess-counter-store';
import type { AuditStore } from './audit-store';
import type { DeliverySlotStore } from './delivery-slots';
import type { DeliveryStore } from './delivery-store';
import type { IdempotencyStore } from './idempotency-record';
import type { KeyStore } from './key-store';
import type { TeamStore } from './team-store';
import type { UsageStore } from './usage-store';
import type { ValueLookupStore } from './value-lookup-store';
import type { WebhookStore } from './webhook-store';
import type { IdentityStore } from './identity-store';
import type { CreditStore } from './credit-store';
import type { MeteredUses } from './metered-use';
import type { VerificationCounts } from './verification-counts';
import type { VerificationAnalytics } from './verification-analytics';
import type { AuditChainStore } from './audit-chain-store';

export interface KeysPort {
  readonly keys: KeyStore;
}
export interface UsagePort {
  readonly usage: UsageStore;
}
export interface LookupsPort {
  readonly lookups: ValueLookupStore;
}
export interface AuditPort {
  readonly audit: AuditStore;
}
export interface TeamsPort {
  readonly teams: TeamStore;
}
export interface IdempotencyPort {
  readonly idempotency: IdempotencyStore;
}
export interface WebhooksPort {
  readonly webhooks: WebhookStore;
}
export interface IdentitiesPort {
  readonly identities: IdentityStore;
}
export interface CountsPort {
  readonly counts: VerificationCounts;
}
export interface ChainsPort {
  readonly chains: AuditChainStore;
}
export interface AnalyticsPort {
  readonly analytics: VerificationAnalytics;
}
/** Where rolled-up hours are exported, when this function exports them. */
export interface AnalyticsExportPort {
  readonly analyticsExport?: AnalyticsExport;
}
export interface CreditsPort {
  readonly credits: CreditStore;
}
export interface DeliveriesPort {
  readonly deliveries: DeliveryStore;
}
/** An endpoint's delivery slots (the delivery only). */
export interface SlotsPort {
  readonly slots: DeliverySlotStore;
}
export interface ClockPort {
  readonly clock: Clock;
}
export interface ObservePort {
  readonly observe: Observability;
}
/** The settings named, and no other. */
export interface SettingsPort<K extends keyof ServiceSettings> {
  readonly settings: Pick<ServiceSettings, K>;
}
/** The end of grace periods, when this function schedules them. */
export interface SchedulerPort {
  readonly scheduler?: RevocationScheduler;
}
/** Expiry notices, when this function schedules them. */
export interface ExpiryPort {
  readonly expiry?: ExpiryScheduler;
}
/** The webhook adapters this function was wired with (a missing one throws when used). */
export interface WebhookAdaptersPort {
  webhookPorts(): WebhookPorts;
}

/** What each port of contract/ports.ts is, by name. */
export interface PortTypes {
  readonly keys: KeyStore;
  readonly lookups: ValueLookupStore;
  readonly usage: UsageStore;
  readonly guesses: GuessCounterStore;
  readonly teams: TeamStore;
  readonly audit: AuditStore;
  readonly idempotency: IdempotencyStore;
  readonly webhooks: WebhookStore;
  readonly identities: IdentityStore;
  readonly credits: CreditStore;
  readonly meters: MeteredUses;
  readonly deliveries: DeliveryStore;
  readonly slots: DeliverySlotStore;
  readonly expiryNotices: ExpiryNoticeStore;
  readonly flushClaims: FlushClaimStore;
  readonly counts: VerificationCounts;
  readonly analytics: VerificationAnalytics;
  readonly chains: AuditChainStore;
  /** Absent where the environment schedules nothing (old values still die by the clock). */
  readonly scheduler: RevocationScheduler | undefined;
  /** Absent where the environment schedules nothing (keys still stop at expires_at). */
  readonly expiry: ExpiryScheduler | undefined;
  readonly secrets: SecretBox;
  readonly policy: { readonly policy: AddressPolicy; readonly resolve: Resolver };
  readonly queue: DeliveryQueue;
  /** Webhook retries past SQS's longest delay; the queue uses them, no use case does. */
  readonly retries: DeliveryQueue['later'] | undefined;
  readonly post: WebhookPoster;
  readonly cacheFlusher: CacheFlusher;
  /** Absent: every partner report is refused. */
  readonly githubKeys: GithubKeySource | undefined;
  /** Absent: the hours are rolled up but not exported. */
  readonly analyticsExport: AnalyticsExport | undefined;
}

type Satisfied = [PortName] extends [keyof PortTypes] ? ([keyof PortTypes] extends [PortName] ? true : never) : never;
/** Compile-time check: PortTypes names exactly the ports of contract/ports.ts. */
export const PORT_TYPES_MATCH: Satisfied = true;

/** What every function gets besides its ports. */
export interface FunctionBasics {
  readonly clock: Clock;
  readonly settings: ServiceSettings;
  readonly observe: Observability;
  readonly memory: ProcessMemory;
  /** Resolves when the function may serve (awaited by the first middleware of every handler). */
  ready(): Promise<void>;
  /** The webhook adapters among the function's ports, as the webhook use cases read them (one it was not given throws when used). */
  webhookPorts(): WebhookPorts;
}

/** A function wired with the ports `N` (a route's `ports`, or HANDLER_PORTS'): what composition builds for it. */
export type Wired<N extends readonly PortName[]> = FunctionBasics & Pick<PortTypes, N[number]>;

/** What a declared function (a route, or a HANDLER_PORTS entry) is wired with. */
export type PortsOf<D extends { readonly ports: readonly PortName[] }> = Wired<D['ports']>;

/** What a function that is not a route is wired with (its HANDLER_PORTS entry). */
export type HandlerPorts<N extends keyof typeof HANDLER_PORTS> = Wired<(typeof HANDLER_PORTS)[N]>;
