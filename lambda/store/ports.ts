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
import type { WebhookPorts } from '../domain/webhook-ports';
import type { AuditStore } from './audit-store';
import type { DeliverySlotStore } from './delivery-slots';
import type { DeliveryStore } from './delivery-store';
import type { IdempotencyStore } from './idempotency-record';
import type { KeyStore } from './key-store';
import type { TeamStore } from './team-store';
import type { UsageStore } from './usage-store';
import type { ValueLookupStore } from './value-lookup-store';
import type { WebhookStore } from './webhook-store';

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
