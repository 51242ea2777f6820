/** The query of one key's read. */
import * as z from 'zod/mini';
import { keyIdSchema } from '../../http/schemas/common';

export const getKeyRequestSchema = z.strictObject({ key_id: keyIdSchema });
export type GetKeyRequest = z.output<typeof getKeyRequestSchema>;
