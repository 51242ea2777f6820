/** PATCH /functions/v1/update-api-key — edits, disables or enables a key; answers the key as it now is. */
import { jsonResponse } from '../contract/response';
import { managementHandler } from '../shared/http/management-handler';
import { updateKeyRequestSchema } from '../shared/http/schemas/update-key';
import { updateKey } from '../shared/keys/update-key';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    (deps) => updateKeyRequestSchema(() => deps.clock.now()),
    async (event, deps) => {
      const data = await updateKey(deps, event.caller, event.input, event.meta);
      return jsonResponse(200, { data, meta: { timestamp: deps.clock.now().toISOString(), request_id: event.meta.requestId } }, event.meta.requestId);
    },
  );

export const handler = makeHandler(environmentServices);
