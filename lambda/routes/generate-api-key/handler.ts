/** POST /functions/v1/generate-api-key — creates a key; its value is returned once. Honours `Idempotency-Key`. */
import { jsonResponse } from '../../contract/response';
import { idempotencyClaimOf, underIdempotency } from '../../http/idempotency';
import { managementHandler } from '../../http/management-handler';
import { createKeyRequestSchema } from './schema';
import { createKey } from '../../use-cases/create-key';
import { route } from './route';
import type { Services } from '../../composition/services';
import { schedulingEnvironmentServices } from '../../composition/scheduling-services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    route,
    services,
    (deps) => createKeyRequestSchema(() => deps.clock.now()),
    async (event, deps) => {
      const requestId = event.meta.requestId;
      const bodyOf = (data: unknown) => ({ data, meta: { timestamp: deps.clock.now().toISOString(), request_id: requestId } });
      const claim = idempotencyClaimOf(event, event.caller, route.name);
      return underIdempotency(deps, claim, requestId, async () => {
        const data = await createKey(deps, event.caller, event.input, event.meta, claim && { claim, status: 201, bodyOf });
        return jsonResponse(201, bodyOf(data), requestId);
      });
    },
  );

export const handler = makeHandler(schedulingEnvironmentServices);
