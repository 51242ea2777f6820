/**
 * The webhook functions' services in Lambda: the environment's services,
 * the webhook stores, and the ports the function passes, built on first use
 * and kept for the life of the process. Each function passes only the ports
 * it uses (webhook-ports.ts), so its bundle carries no client it never calls.
 */
import { environmentServices } from './services';
import { withWebhooks, type WebhookServices } from './webhook-services';
import type { WebhookPorts } from '../domain/webhook-ports';

export function webhookEnvironmentServices(ports: () => WebhookPorts): () => WebhookServices {
  let built: WebhookServices | undefined;
  return () => (built ??= withWebhooks(environmentServices(), ports));
}
