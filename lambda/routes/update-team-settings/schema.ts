import * as z from 'zod/mini';
import { int32, teamIdSchema } from '../../http/schemas/common';
import { MAX_UNUSED_DAYS, MIN_UNUSED_DAYS } from '../../use-cases/team-settings';

const DAYS = `must be null (no policy) or a whole number of days from ${MIN_UNUSED_DAYS} to ${MAX_UNUSED_DAYS}`;

export const updateTeamSettingsRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  disable_unused_after_days: z.nullable(int32(z.int({ error: DAYS }).check(z.minimum(MIN_UNUSED_DAYS, DAYS), z.maximum(MAX_UNUSED_DAYS, DAYS)))),
});
