/** GET /functions/v1/list-identities?team_id=&external_id=&limit=&cursor= — the team's identities, oldest first. */
import { readRoute } from '../../http/management-handler';
import { listIdentitiesRequestSchema } from './schema';
import { listIdentities } from '../../use-cases/identities';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, listIdentitiesRequestSchema, listIdentities, { paged: true });

export const handler = makeHandler(functionServices(route));
