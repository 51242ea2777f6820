/** GET /functions/v1/get-api-key-usage?key_id=&days= — a key's usage: totals, daily counts, the transition split. */
import { readRoute } from '../../http/management-handler';
import { usageRequestSchema } from './schema';
import { keyUsage } from '../../use-cases/usage-report';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, usageRequestSchema, keyUsage);

export const handler = makeHandler(functionServices(route));
