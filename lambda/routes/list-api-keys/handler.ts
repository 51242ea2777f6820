/** GET /functions/v1/list-api-keys?team_id=&environment=&type=&state=&limit=&cursor= — the team's keys, newest first, paged. */
import { readRoute } from '../../http/management-handler';
import { listKeysRequestSchema } from './schema';
import { listKeys } from '../../use-cases/read-keys';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, listKeysRequestSchema, listKeys, { paged: true });

export const handler = makeHandler(functionServices(route));
