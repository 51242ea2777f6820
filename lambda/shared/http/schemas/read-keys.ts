/**
 * Query parameters of the read routes. Query values are strings: numbers
 * are written as digits, and every parameter is checked as strictly as a
 * body field (unknown parameters are refused).
 */
import * as z from 'zod';
import { KEY_STATES } from '../../keys/key-view';
import { keyIdSchema } from './common';

/** A whole number written in digits, within [min, max]; `fallback` when absent. */
export function countParameter(min: number, max: number, fallback: number) {
  return z
    .string({ error: 'must be a number' })
    .regex(/^[0-9]{1,6}$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.int().min(min, `must be a whole number from ${min} to ${max}`).max(max, `must be a whole number from ${min} to ${max}`))
    .optional()
    .transform((value) => value ?? fallback);
}

/** An opaque cursor from a previous page. */
export const cursorParameter = z.string({ error: 'must be a cursor' }).min(1, 'must be a cursor').max(2048, 'must be a cursor').optional();

export const getKeyRequestSchema = z.strictObject({ key_id: keyIdSchema });
export type GetKeyRequest = z.infer<typeof getKeyRequestSchema>;

export const listKeysRequestSchema = z.strictObject({
  team_id: z.guid({ error: 'must be a UUID' }).transform((value) => value.toLowerCase()),
  environment: z.enum(['test', 'live'], { error: 'must be "test" or "live"' }).optional(),
  type: z.enum(['pk', 'sk'], { error: 'must be "pk" or "sk"' }).optional(),
  state: z.enum(KEY_STATES as [string, ...string[]], { error: `must be one of ${KEY_STATES.join(', ')}` }).optional(),
  limit: countParameter(1, 100, 20),
  cursor: cursorParameter,
});
export type ListKeysRequest = z.infer<typeof listKeysRequestSchema>;

export const usageRequestSchema = z.strictObject({ key_id: keyIdSchema, days: countParameter(1, 90, 30) });
export type UsageRequest = z.infer<typeof usageRequestSchema>;

export const auditEventsRequestSchema = z
  .strictObject({
    key_id: keyIdSchema.optional(),
    team_id: z.guid({ error: 'must be a UUID' }).transform((value) => value.toLowerCase()).optional(),
    limit: countParameter(1, 100, 20),
    cursor: cursorParameter,
  })
  .superRefine((query, ctx) => {
    if ((query.key_id === undefined) === (query.team_id === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['key_id'], message: 'give exactly one of key_id and team_id' });
    }
  });
export type AuditEventsRequest = z.infer<typeof auditEventsRequestSchema>;
