/** GET /functions/v1/get-api-key-usage?key_id=&days= — a key's usage: totals, daily counts, the transition split. */
import { readRoute } from '../shared/http/management-handler';
import { usageRequestSchema } from '../shared/http/schemas/read-keys';
import { keyUsage } from '../shared/usage/usage-report';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) => readRoute(services, usageRequestSchema, keyUsage);

export const handler = makeHandler(environmentServices);
