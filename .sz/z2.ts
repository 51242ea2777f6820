import * as z from 'zod';
export const s = z.strictObject({ a: z.string().min(1), b: z.int().optional(), c: z.enum(['x','y']) });
