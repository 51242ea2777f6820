/** GET /functions/v1/list-webhook-endpoints?team_id=&limit=&cursor= — the team's endpoints, never their secrets. */
import { readRoute } from '../../http/management-handler';
import { listEndpointsRequestSchema } from './schema';
import { listEndpoints } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import { environmentServices, type Services } from '../../composition/services';

export const makeHandler = (services: () => Services) => readRoute(route, services, listEndpointsRequestSchema, listEndpoints, { paged: true });

export const handler = makeHandler(environmentServices);
