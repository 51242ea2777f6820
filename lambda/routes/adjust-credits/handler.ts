/** POST /functions/v1/adjust-credits — adds a grant to, or sets the allowance of, a key's or an identity's credits. Honours `Idempotency-Key`. */
import { idempotencyClaimOf, underIdempotency } from '../../http/idempotency';
import { dataBody, dataResponse, managementHandler } from '../../http/management-handler';
import { adjustCreditsRequestSchema } from './schema';
import { adjustCredits } from '../../use-cases/credits';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    (deps) => adjustCreditsRequestSchema(() => deps.clock.now()),
    async (event, deps) => {
      const bodyOf = (data: unknown) => dataBody(data, event, deps);
      const claim = idempotencyClaimOf(event, event.caller, route.name);
      return underIdempotency(deps, claim, event.meta.requestId, async () => {
        const data = await adjustCredits(deps, event.caller, event.input, event.meta, claim && { claim, status: 200, bodyOf });
        return dataResponse(200, data, event, deps);
      });
    },
  );

export const handler = makeHandler(functionServices(route));
