/** POST /functions/v1/generate-api-key — creates a key; its value is returned once. */
import { managementHandler } from '../shared/http/management-handler';
import { jsonResponse } from '../shared/http/response';
import { runtimeDeps } from '../shared/platform/runtime';
import { createKeyRequestSchema } from '../shared/http/schemas/create-key';
import { createKey } from '../shared/keys/create-key';

export const handler = managementHandler(
  () => createKeyRequestSchema(() => runtimeDeps().clock.now()),
  async (event) => {
    const deps = runtimeDeps();
    const data = await createKey(deps, event.caller, event.input, event.meta);
    return jsonResponse(
      201,
      { data, meta: { timestamp: deps.clock.now().toISOString(), request_id: event.meta.requestId } },
      event.meta.requestId,
    );
  },
);
