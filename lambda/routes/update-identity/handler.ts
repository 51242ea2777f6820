/** PATCH /functions/v1/update-identity — changes an identity (If-Match honoured); answers it as it now is, with its ETag. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER, preconditionOf } from '../../http/preconditions';
import { updateIdentityRequestSchema } from './schema';
import { updateIdentity } from '../../use-cases/identities';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => updateIdentityRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await updateIdentity(deps, event.caller, event.input, event.meta, preconditionOf(event));
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

export const handler = makeHandler(functionServices(route));
