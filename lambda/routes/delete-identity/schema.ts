import * as z from 'zod/mini';
import { identityIdSchema } from '../../http/schemas/identities';

export const deleteIdentityRequestSchema = z.strictObject({
  identity_id: identityIdSchema,
  /** Take the identity's keys out of it first (each audited as key.updated); without it, an identity keys name is refused with 409. */
  detach_keys: z.optional(z.boolean({ error: 'must be true or false' })),
});
