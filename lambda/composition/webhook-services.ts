/**
 * The services of the functions that manage or deliver webhooks: the
 * environment's services plus the webhook stores and exactly the ports each
 * function uses, so a bundle carries no client it never calls (the KMS
 * client only where secrets are sealed or opened, SQS only where a delivery
 * is queued, EventBridge Scheduler only in the deliverer).
 */
import type { Services } from './services';
import type { WebhookPorts } from '../domain/webhook-ports';
import { DeliveryStore } from '../store/delivery-store';
import { DeliverySlotStore } from '../store/delivery-slots';
import { WebhookStore } from '../store/webhook-store';

/** Services with the webhook stores and ports. */
export interface WebhookServices extends Services {
  readonly webhooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  /** The ports this function has; a port it was not given throws when used. */
  webhookPorts(): WebhookPorts;
}

/** Ports some of which may be missing: reading a missing one throws (a function the stack did not wire for it). */
export function partialPorts(given: Partial<WebhookPorts>): WebhookPorts {
  const missing = (name: string) => () => {
    throw new Error(`this function has no webhook ${name} configured`);
  };
  return {
    get policy() {
      return given.policy ?? missing('address policy')();
    },
    get secrets() {
      return given.secrets ?? missing('secret box')();
    },
    get post() {
      return given.post ?? missing('transport')();
    },
    get queue() {
      return given.queue ?? missing('queue')();
    },
    get resolve() {
      return given.resolve ?? missing('resolver')();
    },
  };
}

/** `services` with the webhook stores (on its own tables) and `ports`, built on first use. */
export function withWebhooks(services: Services, ports: () => WebhookPorts): WebhookServices {
  let built: WebhookPorts | undefined;
  return {
    ...services,
    webhooks: new WebhookStore(services.tables),
    deliveries: new DeliveryStore(services.tables),
    webhookPorts: () => (built ??= ports()),
  };
}

const withSlots = new WeakMap<WebhookServices, WebhookServices & { readonly slots: DeliverySlotStore }>();

/** The services of a function that makes delivery attempts: with the endpoints' delivery slots (built once per services). */
export function withDeliverySlots(services: WebhookServices): WebhookServices & { readonly slots: DeliverySlotStore } {
  let built = withSlots.get(services);
  if (!built) {
    built = { ...services, slots: new DeliverySlotStore(services.tables) };
    withSlots.set(services, built);
  }
  return built;
}
