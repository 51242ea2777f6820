/** GET /functions/v1/list-webhook-deliveries?endpoint_id=&limit=&cursor= — an endpoint's attempts, newest first. */
import { readRoute } from '../../http/management-handler';
import { listDeliveriesRequestSchema } from './schema';
import { listDeliveries } from '../../use-cases/webhook-actions';
import { route } from './route';
import { environmentServices, type Services } from '../../composition/services';

export const makeHandler = (services: () => Services) => readRoute(route, services, listDeliveriesRequestSchema, listDeliveries, { paged: true });

export const handler = makeHandler(environmentServices);
