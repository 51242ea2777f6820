/** POST /functions/v1/create-webhook-endpoint — adds an endpoint; its signing secret is returned once. Honours `Idempotency-Key`. */
import type { WebhookEventType } from '../../contract/webhooks';
import { idempotencyClaimOf, underIdempotency } from '../../http/idempotency';
import { dataBody, dataResponse, managementHandler } from '../../http/management-handler';
import { createEndpointRequestSchema } from './schema';
import { createEndpoint } from '../../use-cases/webhook-endpoints';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => createEndpointRequestSchema,
    async (event, deps) => {
      const requestId = event.meta.requestId;
      const claim = idempotencyClaimOf(event, event.caller, route.name);
      const bodyOf = (data: unknown) => dataBody(data, event, deps);
      return underIdempotency(deps, claim, requestId, async () => {
        const input = { ...event.input, events: event.input.events as WebhookEventType[] | undefined };
        return dataResponse(201, await createEndpoint(deps, event.caller, input, event.meta, claim && { claim, status: 201, bodyOf }), event, deps);
      });
    },
  );

export const handler = makeHandler(functionServices(route));
