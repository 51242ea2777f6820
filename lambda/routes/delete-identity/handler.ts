/** DELETE /functions/v1/delete-identity — removes an identity of the caller's team, and frees its external id. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { deleteIdentityRequestSchema } from './schema';
import { deleteIdentity } from '../../use-cases/identities';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => deleteIdentityRequestSchema,
    async (event, deps) => dataResponse(200, await deleteIdentity(deps, event.caller, event.input, event.meta), event, deps),
  );

export const handler = makeHandler(functionServices(route));
