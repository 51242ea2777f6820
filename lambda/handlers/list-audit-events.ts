/** GET /functions/v1/list-audit-events?key_id= | ?team_id= [&limit=&cursor=] — the audit trail, newest first. */
import { readRoute } from '../shared/http/management-handler';
import { auditEventsRequestSchema } from '../shared/http/schemas/read-keys';
import { listAuditEvents } from '../shared/audit/audit-trail';
import { environmentServices, type Services } from '../shared/platform/services';

export const makeHandler = (services: () => Services) => readRoute(services, auditEventsRequestSchema, listAuditEvents, { paged: true });

export const handler = makeHandler(environmentServices);
