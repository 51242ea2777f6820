/** GET /functions/v1/get-verification-analytics — a team's verification counts (docs/analytics.md). */
import { dataResponse, managementHandler } from '../../http/management-handler';
import { analyticsRequestSchema } from './schema';
import { verificationAnalytics } from '../../use-cases/verification-analytics';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) =>
  managementHandler(
    route,
    services,
    () => analyticsRequestSchema,
    async (event, deps) => {
      const { rows, meta } = await verificationAnalytics(deps, event.caller, event.input);
      return dataResponse(200, rows, event, deps, meta);
    },
  );

export const handler = makeHandler(functionServices(route));
