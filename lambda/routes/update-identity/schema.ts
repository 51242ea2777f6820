import * as z from 'zod/mini';
import { externalIdSchema, identityIdSchema, metaSchema } from '../../http/schemas/identities';
import { creditsSchema, limitsSchema } from '../../http/schemas/meters';

export const updateIdentityRequestSchema = z.strictObject({
  identity_id: identityIdSchema,
  external_id: z.optional(externalIdSchema),
  meta: z.optional(metaSchema),
  // The whole list (`[]`: none); credits set the balance (`null`: unlimited).
  limits: z.optional(limitsSchema),
  credits: z.optional(creditsSchema),
});
