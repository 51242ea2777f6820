/** POST /functions/v1/generate-api-key — creates a key; its value is returned once. Honours `Idempotency-Key`. */
import { idempotencyClaimOf, underIdempotency } from '../../http/idempotency';
import { dataBody, dataResponse, managementHandler } from '../../http/management-handler';
import { createKeyRequestSchema } from './schema';
import { createKey } from '../../use-cases/create-key';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    (deps) => createKeyRequestSchema(() => deps.clock.now()),
    async (event, deps) => {
      const requestId = event.meta.requestId;
      const bodyOf = (data: unknown) => dataBody(data, event, deps);
      const claim = idempotencyClaimOf(event, event.caller, route.name);
      return underIdempotency(deps, claim, requestId, async () => {
        const data = await createKey(deps, event.caller, event.input, event.meta, claim && { claim, status: 201, bodyOf });
        return dataResponse(201, data, event, deps);
      });
    },
  );

export const handler = makeHandler(functionServices(route));
