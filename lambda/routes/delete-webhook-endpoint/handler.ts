/** DELETE /functions/v1/delete-webhook-endpoint — removes an endpoint; nothing more is delivered to it. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { deleteEndpointRequestSchema } from './schema';
import { deleteEndpoint } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => deleteEndpointRequestSchema,
    async (event, deps) => dataResponse(200, await deleteEndpoint(deps, event.caller, event.input, event.meta), event, deps),
  );

// Reads and deletes only: no port (no KMS, no queue, no address check).
export const handler = makeHandler(functionServices(route));
