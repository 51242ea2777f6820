/** GET /functions/v1/get-team-settings?team_id= — the caller's team's settings, with their ETag. */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { ETAG_HEADER } from '../../http/preconditions';
import { getTeamSettingsRequestSchema } from './schema';
import { getTeamSettings } from '../../use-cases/team-settings';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => getTeamSettingsRequestSchema,
    async (event, deps) => {
      const { resource, entityTag } = await getTeamSettings(deps, event.caller, event.input);
      return dataResponse(200, resource, event, deps, {}, { [ETAG_HEADER]: entityTag });
    },
  );

export const handler = makeHandler(functionServices(route));
