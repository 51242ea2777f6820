import * as z from 'zod/mini';
export const s = z.strictObject({ a: z.string().check(z.minLength(1)), b: z.optional(z.int()), c: z.enum(['x','y']) });
