/** GET /functions/v1/get-api-key-usage?key_id=&days= — a key's usage: totals, daily counts, the transition split. */
import { dataResponse, managementHandler } from '../shared/http/management-handler';
import { usageRequestSchema } from '../shared/http/schemas/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';
import { keyUsage } from '../shared/usage/usage-report';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => usageRequestSchema,
    async (event, deps) =>
      dataResponse(200, await keyUsage(deps, event.caller, event.input), event, deps),
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
