/**
 * What webhook delivery needs from outside: the queue that holds a retry
 * until it is due, the sealing of secrets, the HTTP attempt and the address
 * policy. In AWS: SQS (and EventBridge Scheduler past 15 minutes), KMS and
 * HTTPS to public addresses only; locally: an in-process queue on the
 * injected clock, a key under DATA_DIR, and loopback allowed by default.
 */
import type { AddressPolicy, Resolver } from '../platform/address-policy';
import type { SecretBox } from '../platform/secret-box';
import type { DeliveryJob } from './webhook-endpoints';

/** What one attempt came to: the receiver's status, or a network error in words. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  /** `Retry-After` in seconds, when the receiver sent one. */
  retryAfterSeconds: number | null;
  durationMs: number;
}

/** One HTTP attempt of a delivery (lambda/adapters/webhook-transport.ts in AWS and locally; a stub in tests). */
export type WebhookPoster = (url: string, headers: Record<string, string>, body: string) => Promise<AttemptResult>;

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
