/** GET /functions/v1/list-api-keys?team_id=&environment=&type=&state=&limit=&cursor= — the team's keys, newest first, paged. */
import { dataResponse, managementHandler } from '../shared/http/management-handler';
import { listKeysRequestSchema } from '../shared/http/schemas/read-keys';
import { listKeys } from '../shared/keys/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => listKeysRequestSchema,
    async (event, deps) => {
      const page = await listKeys(deps, event.caller, event.input);
      return dataResponse(200, page.data, event, deps, { next_cursor: page.next_cursor });
    },
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
