/** DELETE /functions/v1/delete-webhook-endpoint — removes an endpoint; nothing more is delivered to it. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { deleteEndpointRequestSchema } from './schema';
import { deleteEndpoint } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import { environmentServices, type Services } from '../../composition/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    route,
    services,
    () => deleteEndpointRequestSchema,
    async (event, deps) => dataResponse(200, await deleteEndpoint(deps, event.caller, event.input, event.meta), event, deps),
  );

export const handler = makeHandler(environmentServices);
