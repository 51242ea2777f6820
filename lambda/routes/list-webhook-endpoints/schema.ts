/** The query of the endpoint list (unknown parameters are refused). */
import * as z from 'zod/mini';
import { countParameter, cursorParameter, teamIdSchema } from '../../http/schemas/common';

export const listEndpointsRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  limit: countParameter(1, 100, 20),
  cursor: cursorParameter,
});
