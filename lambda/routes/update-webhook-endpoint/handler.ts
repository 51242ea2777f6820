/** PATCH /functions/v1/update-webhook-endpoint — changes an endpoint; answers it as it now is, with its ETag. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER, preconditionOf } from '../../http/preconditions';
import { updateEndpointRequestSchema } from './schema';
import { updateEndpoint } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import { environmentServices, type Services } from '../../composition/services';
import { STRICT_POLICY } from '../../platform/webhook-address';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    route,
    services,
    () => updateEndpointRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await updateEndpoint(deps, event.caller, event.input, event.meta, preconditionOf(event));
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

/** In AWS only the address policy is needed here (a URL is checked; nothing is sealed or sent). */
let withPolicy: Services | undefined;
export const handler = makeHandler(
  () => (withPolicy ??= { ...environmentServices(), webhookPorts: () => ({ policy: STRICT_POLICY }) as ReturnType<Services['webhookPorts']> }),
);
