/** PATCH /functions/v1/update-team-settings — changes the team's settings (If-Match honoured, audited); answers them as they now are. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER, preconditionOf } from '../../http/preconditions';
import { updateTeamSettingsRequestSchema } from './schema';
import { updateTeamSettings } from '../../use-cases/team-settings';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => updateTeamSettingsRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await updateTeamSettings(deps, event.caller, event.input, event.meta, preconditionOf(event));
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

export const handler = makeHandler(functionServices(route));
