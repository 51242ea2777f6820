/** GET /functions/v1/get-identity?identity_id= — one identity of the caller's team, with its ETag. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER } from '../../http/preconditions';
import { getIdentityRequestSchema } from './schema';
import { getIdentity } from '../../use-cases/identities';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => getIdentityRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await getIdentity(deps, event.caller, event.input);
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

export const handler = makeHandler(functionServices(route));
