/** POST /functions/v1/generate-api-key — creates a key; its value is returned once. */
import { managementHandler } from '../shared/http/management-handler';
import { jsonResponse } from '../contract/response';
import { createKeyRequestSchema } from '../shared/http/schemas/create-key';
import { createKey } from '../shared/keys/create-key';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    (deps) => createKeyRequestSchema(() => deps.clock.now()),
    async (event, deps) => {
      const data = await createKey(deps, event.caller, event.input, event.meta);
      return jsonResponse(
        201,
        { data, meta: { timestamp: deps.clock.now().toISOString(), request_id: event.meta.requestId } },
        event.meta.requestId,
      );
    },
  );

export const handler = makeHandler(environmentServices);
