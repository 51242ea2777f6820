/** POST /functions/v1/rotate-webhook-secret — a new signing secret, returned once; the old one signs beside it for 24 hours. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { rotateSecretRequestSchema } from './schema';
import { rotateSecret } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => rotateSecretRequestSchema,
    async (event, deps) => dataResponse(200, await rotateSecret(deps, event.caller, event.input, event.meta), event, deps),
  );

export const handler = makeHandler(functionServices(route));
