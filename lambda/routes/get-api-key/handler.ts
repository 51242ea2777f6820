/** GET /functions/v1/get-api-key?key_id= — one key of the caller's team (never its value or hash). */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER } from '../../http/preconditions';
import { getKeyRequestSchema } from './schema';
import { getKey } from '../../use-cases/read-keys';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => getKeyRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await getKey(deps, event.caller, event.input);
      // The key's revision, for an If-Match on its next change (http/preconditions.ts).
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

export const handler = makeHandler(functionServices(route));
