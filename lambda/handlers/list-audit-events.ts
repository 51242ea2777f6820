/** GET /functions/v1/list-audit-events?key_id= | ?team_id= [&limit=&cursor=] — the audit trail, newest first. */
import { jsonResponse } from '../contract/response';
import { listAuditEvents } from '../shared/audit/audit-trail';
import { managementHandler } from '../shared/http/management-handler';
import { auditEventsRequestSchema } from '../shared/http/schemas/read-keys';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) =>
  managementHandler(
    services,
    () => auditEventsRequestSchema,
    async (event, deps) => {
      const page = await listAuditEvents(deps, event.caller, event.input);
      const meta = { timestamp: deps.clock.now().toISOString(), request_id: event.meta.requestId, next_cursor: page.next_cursor };
      return jsonResponse(200, { data: page.data, meta }, event.meta.requestId);
    },
    { input: 'query' },
  );

export const handler = makeHandler(environmentServices);
