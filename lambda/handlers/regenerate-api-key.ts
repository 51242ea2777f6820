/** POST /functions/v1/regenerate-api-key — rolls a key's value; the new value is returned once. Honours `Idempotency-Key`. */
import { jsonResponse } from '../contract/response';
import { idempotencyClaimOf, underIdempotency } from '../shared/http/idempotency';
import { managementHandler } from '../shared/http/management-handler';
import { regenerateKeyRequestSchema } from '../shared/http/schemas/regenerate-key';
import { regenerateKey } from '../shared/keys/regenerate-key';
import type { Services } from '../shared/platform/services';
import { schedulingEnvironmentServices } from '../shared/rotation/scheduling-services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => regenerateKeyRequestSchema,
    async (event, deps) => {
      const claim = idempotencyClaimOf(event, event.caller, 'regenerate-api-key');
      return underIdempotency(deps, claim, event.meta.requestId, async () => {
        const result = await regenerateKey(deps, event.caller, event.input, event.meta, claim && { claim, status: 200, bodyOf: (body) => body });
        return jsonResponse(200, result, event.meta.requestId);
      });
    },
  );

export const handler = makeHandler(schedulingEnvironmentServices);
