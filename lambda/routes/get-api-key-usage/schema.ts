/** The query of a key's usage. */
import * as z from 'zod/mini';
import { countParameter, keyIdSchema } from '../../http/schemas/common';

export const usageRequestSchema = z.strictObject({ key_id: keyIdSchema, days: countParameter(1, 90, 30) });
export type UsageRequest = z.output<typeof usageRequestSchema>;
