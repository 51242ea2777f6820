import * as z from 'zod/mini';
import { keyIdSchema, text } from '../../http/schemas/common';

export const CONFIRMATION_FIELD = 'confirm_deletion';

export const deleteKeyRequestSchema = z.strictObject({
  key_id: keyIdSchema,
  confirm_deletion: z.literal(true, {
    error: 'must be literally true to confirm the permanent deletion',
  }),
  reason: z.optional(text(1000)),
});

export type DeleteKeyRequest = z.output<typeof deleteKeyRequestSchema>;
