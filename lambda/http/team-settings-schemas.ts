/** The documented answer of the team-settings routes (read by their openapi.ts only). */
import * as z from 'zod';
import { instant, meta } from './response-schemas';

export const teamSettingsSchema = z
  .strictObject({
    team_id: z.string(),
    disable_unused_after_days: z
      .int()
      .min(30)
      .max(730)
      .nullable()
      .meta({ description: 'Keys with no VALID use in this many days are disabled daily; null: never' }),
    updated_at: instant,
  })
  .meta({ id: 'TeamSettings' });

export const teamSettingsResponseSchema = z.strictObject({ data: teamSettingsSchema, meta }).meta({ id: 'TeamSettingsResponse' });
