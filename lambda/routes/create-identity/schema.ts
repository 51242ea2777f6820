import * as z from 'zod/mini';
import { teamIdSchema } from '../../http/schemas/common';
import { externalIdSchema, metaSchema } from '../../http/schemas/identities';
import { creditsSchema, limitsSchema } from '../../http/schemas/meters';

export const createIdentityRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  external_id: externalIdSchema,
  meta: z.optional(metaSchema),
  limits: z.optional(limitsSchema),
  credits: z.optional(creditsSchema),
});
