/** GET /functions/v1/get-api-key-usage?key_id=&days= — a key's usage: totals, daily counts, the transition split. */
import { jsonResponse } from '../contract/response';
import { managementHandler } from '../shared/http/management-handler';
import { usageRequestSchema } from '../shared/http/schemas/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';
import { keyUsage } from '../shared/usage/usage-report';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => usageRequestSchema,
    async (event, deps) => {
      const data = await keyUsage(deps, event.caller, event.input);
      return jsonResponse(200, { data, meta: { timestamp: deps.clock.now().toISOString(), request_id: event.meta.requestId } }, event.meta.requestId);
    },
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
