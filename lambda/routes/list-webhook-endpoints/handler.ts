/** GET /functions/v1/list-webhook-endpoints?team_id=&limit=&cursor= — the team's endpoints, never their secrets. */
import { readRoute } from '../../http/management-handler';
import { listEndpointsRequestSchema } from './schema';
import { listEndpoints } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, listEndpointsRequestSchema, listEndpoints, { paged: true });

// Reads and deletes only: no port (no KMS, no queue, no address check).
export const handler = makeHandler(functionServices(route));
