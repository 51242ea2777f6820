/** POST /functions/v1/regenerate-api-key — rolls a key's value; the new value is returned once. */
import { managementHandler } from '../shared/http/management-handler';
import { jsonResponse } from '../shared/http/response';
import { runtimeDeps } from '../shared/platform/runtime';
import { regenerateKeyRequestSchema } from '../shared/http/schemas/regenerate-key';
import { regenerateKey } from '../shared/keys/regenerate-key';
import { revocationScheduler } from '../shared/rotation/scheduling';

export const handler = managementHandler(
  () => regenerateKeyRequestSchema,
  async (event) => {
    const result = await regenerateKey(
      { ...runtimeDeps(), scheduler: revocationScheduler() },
      event.caller,
      event.input,
      event.meta,
    );
    return jsonResponse(200, result, event.meta.requestId);
  },
);
