import * as z from 'zod/mini';
import { teamIdSchema } from '../../http/schemas/common';

export const getTeamSettingsRequestSchema = z.strictObject({ team_id: teamIdSchema });
