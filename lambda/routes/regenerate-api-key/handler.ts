/** POST /functions/v1/regenerate-api-key — rolls a key's value; the new value is returned once. Honours `Idempotency-Key`. */
import { jsonResponse } from '../../contract/response';
import { idempotencyClaimOf, underIdempotency } from '../../http/idempotency';
import { managementHandler } from '../../http/management-handler';
import { preconditionOf } from '../../http/preconditions';
import { regenerateKeyRequestSchema } from './schema';
import { regenerateKey } from '../../use-cases/regenerate-key';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => regenerateKeyRequestSchema,
    async (event, deps) => {
      const claim = idempotencyClaimOf(event, event.caller, route.name);
      return underIdempotency(deps, claim, event.meta.requestId, async () => {
        const idempotent = claim && { claim, status: 200, bodyOf: <T>(body: T) => body };
        const result = await regenerateKey(deps, event.caller, event.input, event.meta, idempotent, preconditionOf(event));
        return jsonResponse(200, result, event.meta.requestId);
      });
    },
  );

export const handler = makeHandler(functionServices(route));
