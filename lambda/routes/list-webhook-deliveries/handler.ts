/** GET /functions/v1/list-webhook-deliveries?endpoint_id=&limit=&cursor= — an endpoint's attempts, newest first. */
import { readRoute } from '../../http/management-handler';
import { listDeliveriesRequestSchema } from './schema';
import { listDeliveries } from '../../use-cases/webhook-actions';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, listDeliveriesRequestSchema, listDeliveries, { paged: true });

// Reads and deletes only: no port (no KMS, no queue, no address check).
export const handler = makeHandler(functionServices(route));
