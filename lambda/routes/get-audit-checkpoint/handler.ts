/** GET /functions/v1/get-audit-checkpoint?team_id= — the team's latest signed audit checkpoint (docs/audit.md "Checkpoints"). */
import { readRoute } from '../../http/management-handler';
import { getAuditCheckpointRequestSchema } from './schema';
import { latestAuditCheckpoint } from '../../use-cases/audit-checkpoint-reads';
import { route } from './route';
import type { PortsOf } from '../../store/ports';
import { functionServices } from '../../composition/environment';

export const makeHandler = (services: () => PortsOf<typeof route>) => readRoute(route, services, getAuditCheckpointRequestSchema, latestAuditCheckpoint);

export const handler = makeHandler(functionServices(route));
