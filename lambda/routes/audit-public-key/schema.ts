import * as z from 'zod/mini';

/** No parameters: any is refused like an unknown field. */
export const auditPublicKeyRequestSchema = z.strictObject({});
