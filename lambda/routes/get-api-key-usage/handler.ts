/** GET /functions/v1/get-api-key-usage?key_id=&days= — a key's usage: totals, daily counts, the transition split. */
import { readRoute } from '../../http/management-handler';
import { usageRequestSchema } from './schema';
import { keyUsage } from '../../use-cases/usage-report';
import { route } from './route';
import { environmentServices, type Services } from '../../composition/services';

export const makeHandler = (services: () => Services) => readRoute(route, services, usageRequestSchema, keyUsage);

export const handler = makeHandler(environmentServices);
