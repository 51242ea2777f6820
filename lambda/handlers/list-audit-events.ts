/** GET /functions/v1/list-audit-events?key_id= | ?team_id= [&limit=&cursor=] — the audit trail, newest first. */
import { listAuditEvents } from '../shared/audit/audit-trail';
import { dataResponse, managementHandler } from '../shared/http/management-handler';
import { auditEventsRequestSchema } from '../shared/http/schemas/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => auditEventsRequestSchema,
    async (event, deps) => {
      const page = await listAuditEvents(deps, event.caller, event.input);
      return dataResponse(200, page.data, event, deps, { next_cursor: page.next_cursor });
    },
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
