/** GET /functions/v1/list-audit-events?key_id= | ?team_id= [&limit=&cursor=] — the audit trail, newest first. */
import { readRoute } from '../../http/management-handler';
import { auditEventsRequestSchema } from '../list-api-keys/schema';
import { listAuditEvents } from '../../use-cases/audit-trail';
import { environmentServices, type Services } from '../../composition/services';

export const makeHandler = (services: () => Services) => readRoute(services, auditEventsRequestSchema, listAuditEvents, { paged: true });

export const handler = makeHandler(environmentServices);
