/**
 * Query parameters of the read routes. Query values are strings: numbers
 * are written as digits, and every parameter is checked as strictly as a
 * body field (unknown parameters are refused).
 */
import * as z from 'zod/mini';
import { KEY_STATES } from '../../domain/key-view';
import { keyIdSchema, teamIdSchema, then } from '../../http/schemas/common';

/** A whole number written in digits, within [min, max]; `fallback` when absent. */
export function countParameter(min: number, max: number, fallback: number) {
  const words = `must be a whole number from ${min} to ${max}`;
  return then(
    z.optional(
      z.pipe(
        then(z.string({ error: 'must be a number' }).check(z.regex(/^[0-9]{1,6}$/, words)), Number),
        z.int().check(z.minimum(min, words), z.maximum(max, words)),
      ),
    ),
    (value) => value ?? fallback,
  );
}

/** An opaque cursor from a previous page. */
export const cursorParameter = z.optional(
  z.string({ error: 'must be a cursor' }).check(z.minLength(1, 'must be a cursor'), z.maxLength(2048, 'must be a cursor')),
);

export const getKeyRequestSchema = z.strictObject({ key_id: keyIdSchema });
export type GetKeyRequest = z.output<typeof getKeyRequestSchema>;

export const listKeysRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  environment: z.optional(z.enum(['test', 'live'], { error: 'must be "test" or "live"' })),
  type: z.optional(z.enum(['pk', 'sk'], { error: 'must be "pk" or "sk"' })),
  state: z.optional(z.enum(KEY_STATES as [string, ...string[]], { error: `must be one of ${KEY_STATES.join(', ')}` })),
  limit: countParameter(1, 100, 20),
  cursor: cursorParameter,
});
export type ListKeysRequest = z.output<typeof listKeysRequestSchema>;

export const usageRequestSchema = z.strictObject({ key_id: keyIdSchema, days: countParameter(1, 90, 30) });
export type UsageRequest = z.output<typeof usageRequestSchema>;

export const auditEventsRequestSchema = z
  .strictObject({
    key_id: z.optional(keyIdSchema),
    team_id: z.optional(teamIdSchema),
    limit: countParameter(1, 100, 20),
    cursor: cursorParameter,
  })
  .check(
    z.superRefine((query, ctx) => {
      // Read as "<field> <issue>": "key_id is required when team_id is not given", "team_id cannot be combined with key_id …".
      if (query.key_id === undefined && query.team_id === undefined) {
        ctx.addIssue({ code: 'custom', path: ['key_id'], message: 'is required when team_id is not given (one of the two names whose trail to read)' });
      } else if (query.key_id !== undefined && query.team_id !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['team_id'], message: 'cannot be combined with key_id (give one of the two)' });
      }
    }),
  );
export type AuditEventsRequest = z.output<typeof auditEventsRequestSchema>;
