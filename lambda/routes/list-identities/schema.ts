/** The query of the identity list (unknown parameters are refused). */
import * as z from 'zod/mini';
import { countParameter, cursorParameter, teamIdSchema } from '../../http/schemas/common';
import { externalIdSchema } from '../../http/schemas/identities';

export const listIdentitiesRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  external_id: z.optional(externalIdSchema),
  limit: countParameter(1, 100, 20),
  cursor: cursorParameter,
});
