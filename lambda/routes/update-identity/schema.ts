import * as z from 'zod/mini';
import { externalIdSchema, identityIdSchema, metaSchema } from '../../http/schemas/identities';

export const updateIdentityRequestSchema = z.strictObject({
  identity_id: identityIdSchema,
  external_id: z.optional(externalIdSchema),
  meta: z.optional(metaSchema),
});
