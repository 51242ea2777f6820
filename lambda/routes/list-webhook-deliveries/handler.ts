/** GET /functions/v1/list-webhook-deliveries?endpoint_id=&limit=&cursor= — an endpoint's attempts, newest first. */
import { readRoute } from '../../http/management-handler';
import { listDeliveriesRequestSchema } from './schema';
import { listDeliveries } from '../../use-cases/webhook-actions';
import { route } from './route';
import { partialPorts, type WebhookServices } from '../../composition/webhook-services';
import { webhookEnvironmentServices } from '../../composition/webhook-environment';

export const makeHandler = (services: () => WebhookServices) => readRoute(route, services, listDeliveriesRequestSchema, listDeliveries, { paged: true });

// Reads and deletes only: no port (no KMS, no queue, no address check).
export const handler = makeHandler(webhookEnvironmentServices(() => partialPorts({})));
