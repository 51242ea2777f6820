/**
 * What webhook delivery needs from outside: the queue that holds a retry
 * until it is due, the sealing of secrets, the HTTP attempt and the address
 * policy. In AWS: SQS (and EventBridge Scheduler past 15 minutes), KMS and
 * HTTPS to public addresses only; locally: an in-process queue on the
 * injected clock, a key under DATA_DIR, and loopback allowed by default.
 */
import type { AddressPolicy, Resolver } from '../platform/webhook-address';
import type { SecretBox } from '../platform/secret-box';
import type { WebhookPoster } from '../platform/webhook-transport';
import type { DeliveryJob } from './webhook-endpoints';

export interface DeliveryQueue {
  /** Runs `job` after `delaySeconds` (0: as soon as it can), surviving a restart of the process that asked. */
  later(job: DeliveryJob, delaySeconds: number): Promise<void>;
}

export interface WebhookPorts {
  readonly queue: DeliveryQueue;
  readonly secrets: SecretBox;
  readonly post: WebhookPoster;
  readonly policy: AddressPolicy;
  /** Resolves a host name to its addresses (the system's DNS; a stub in the tests). */
  readonly resolve: Resolver;
}
