/** POST /functions/v1/regenerate-api-key — rolls a key's value; the new value is returned once. */
import { managementHandler } from '../shared/http/management-handler';
import { jsonResponse } from '../contract/response';
import { regenerateKeyRequestSchema } from '../shared/http/schemas/regenerate-key';
import { regenerateKey } from '../shared/keys/regenerate-key';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => regenerateKeyRequestSchema,
    async (event, deps) => jsonResponse(200, await regenerateKey(deps, event.caller, event.input, event.meta), event.meta.requestId),
  );

export const handler = makeHandler(environmentServices);
