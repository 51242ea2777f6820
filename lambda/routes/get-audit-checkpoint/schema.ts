import * as z from 'zod/mini';
import { teamIdSchema } from '../../http/schemas/common';

export const getAuditCheckpointRequestSchema = z.strictObject({ team_id: teamIdSchema });
