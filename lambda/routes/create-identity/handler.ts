/** POST /functions/v1/create-identity — adds an identity to the caller's team; answers it with its ETag. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER } from '../../http/preconditions';
import { createIdentityRequestSchema } from './schema';
import { createIdentity } from '../../use-cases/identities';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => createIdentityRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await createIdentity(deps, event.caller, event.input, event.meta);
      return dataResponse(201, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

export const handler = makeHandler(functionServices(route));
