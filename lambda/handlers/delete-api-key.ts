/** DELETE /functions/v1/delete-api-key — permanently deletes a key (JSON body). */
import { managementHandler } from '../shared/http/management-handler';
import { jsonResponse } from '../shared/http/response';
import { runtimeDeps } from '../shared/platform/runtime';
import { CONFIRMATION_FIELD, deleteKeyRequestSchema } from '../shared/http/schemas/delete-key';
import { deleteKey } from '../shared/keys/delete-key';
import { revocationScheduler } from '../shared/rotation/scheduling';

export const handler = managementHandler(
  () => deleteKeyRequestSchema,
  async (event) => {
    const result = await deleteKey(
      { ...runtimeDeps(), scheduler: revocationScheduler() },
      event.caller,
      event.input,
      event.meta,
    );
    return jsonResponse(200, result, event.meta.requestId);
  },
  { confirmationField: CONFIRMATION_FIELD },
);
