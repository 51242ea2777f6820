import * as z from 'zod';
import { keyIdSchema, text } from './common';

export const CONFIRMATION_FIELD = 'confirm_deletion';

export const deleteKeyRequestSchema = z.strictObject({
  key_id: keyIdSchema,
  confirm_deletion: z.literal(true, {
    error: 'must be literally true to confirm the permanent deletion',
  }),
  reason: text(1000).optional(),
});

export type DeleteKeyRequest = z.infer<typeof deleteKeyRequestSchema>;
