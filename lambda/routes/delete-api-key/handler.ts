/** DELETE /functions/v1/delete-api-key — permanently deletes a key (JSON body). */
import { managementHandler } from '../../http/management-handler';
import { preconditionOf } from '../../http/preconditions';
import { jsonResponse } from '../../contract/response';
import { CONFIRMATION_FIELD, deleteKeyRequestSchema } from './schema';
import { deleteKey } from '../../use-cases/delete-key';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => deleteKeyRequestSchema,
    async (event, deps) => jsonResponse(200, await deleteKey(deps, event.caller, event.input, event.meta, preconditionOf(event)), event.meta.requestId),
    { confirmationField: CONFIRMATION_FIELD },
  );

export const handler = makeHandler(functionServices(route));
