/** PATCH /functions/v1/update-api-key — edits, disables or enables a key; answers the key as it now is. */
import { dataResponse, managementHandler } from '../shared/http/management-handler';
import { READ_ONLY_KEY_FIELDS, updateKeyRequestSchema } from '../shared/http/schemas/update-key';
import { updateKey } from '../shared/keys/update-key';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    (deps) => updateKeyRequestSchema(() => deps.clock.now()),
    async (event, deps) =>
      dataResponse(200, await updateKey(deps, event.caller, event.input, event.meta), event, deps),
    { readOnlyFields: READ_ONLY_KEY_FIELDS },
  );

export const handler = makeHandler(environmentServices);
