/** GET /functions/v1/get-api-key?key_id= — one key of the caller's team (never its value or hash). */
import { dataResponse, managementHandler } from '../shared/http/management-handler';
import { getKeyRequestSchema } from '../shared/http/schemas/read-keys';
import { getKey } from '../shared/keys/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => getKeyRequestSchema,
    async (event, deps) =>
      dataResponse(200, await getKey(deps, event.caller, event.input), event, deps),
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
