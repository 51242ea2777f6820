/** GET /functions/v1/list-audit-events?key_id= | ?team_id= [&limit=&cursor=] — the audit trail, newest first. */
import { readRoute } from '../../http/management-handler';
import { auditEventsRequestSchema } from './schema';
import { listAuditEvents } from '../../use-cases/audit-trail';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, auditEventsRequestSchema, listAuditEvents, { paged: true });

export const handler = makeHandler(functionServices(route));
