/** PATCH /functions/v1/update-api-key — edits, disables or enables a key; answers the key as it now is. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER, preconditionOf } from '../../http/preconditions';
import { READ_ONLY_KEY_FIELDS, updateKeyRequestSchema } from './schema';
import { updateKey } from '../../use-cases/update-key';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    (deps) => updateKeyRequestSchema(() => deps.clock.now()),
    async (event, deps) => {
      const { resource, entityTag } = await updateKey(deps, event.caller, event.input, event.meta, preconditionOf(event));
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
    { readOnlyFields: READ_ONLY_KEY_FIELDS },
  );

export const handler = makeHandler(functionServices(route));
