/** POST /functions/v1/redeliver-webhook — sends an event again at once, with its original webhook-id (202: queued). */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { redeliverRequestSchema } from './schema';
import { redeliver } from '../../use-cases/webhook-actions';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => redeliverRequestSchema,
    async (event, deps) => dataResponse(202, await redeliver(deps, event.caller, event.input, event.meta), event, deps),
  );

export const handler = makeHandler(functionServices(route));
