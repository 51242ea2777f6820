/** GET /functions/v1/get-api-key-usage?key_id=&days= — a key's usage: totals, daily counts, the transition split. */
import { jsonResponse } from '../contract/response';
import { managementHandler } from '../shared/http/management-handler';
import { usageRequestSchema } from '../shared/http/schemas/read-keys';
import { reachableKey } from '../shared/keys/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';
import { usageReport } from '../shared/usage/usage-report';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => usageRequestSchema,
    async (event, deps) => {
      const now = deps.clock.now();
      const key = await reachableKey(deps, event.caller, event.input.key_id, now);
      const data = usageReport(key, await deps.usage.usageItem(key.id), event.input.days, now);
      return jsonResponse(200, { data, meta: { timestamp: now.toISOString(), request_id: event.meta.requestId } }, event.meta.requestId);
    },
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
