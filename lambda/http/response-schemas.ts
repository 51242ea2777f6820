/**
 * The response bodies' shared parts, as zod schemas: the error body, the
 * page envelope, a key as every read answers it. Each route's own response
 * schema is in its openapi.ts. They describe what the handlers answer, for the
 * OpenAPI document and for checking every answer the tests receive; the
 * handlers do not import them.
 */
import * as z from 'zod';
import { ErrorCode } from '../contract/errors';
import { keyNameAndRestrictions } from '../domain/audit-event-schema';
import { KEY_STATES } from '../domain/key-view';
import { ON_LEAK_VALUES } from '../domain/model';

export const instant = z.iso.datetime({ offset: true }).meta({ id: 'Timestamp', description: 'ISO 8601 timestamp', example: '2026-11-23T12:00:00.000Z' });
export const keyId = z.string().meta({ description: 'Key id (a 26-character ULID)', example: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ' });
export const keyType = z.enum(['pk', 'sk']).meta({ description: '`pk` public (restricted by `domains`) or `sk` secret' });
export const environment = z.enum(['test', 'live']);
export const count = z.int().min(0);

export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]),
      message: z.string().meta({ description: 'What went wrong, in words' }),
      details: z.array(
        z.strictObject({
          field: z.string().meta({ description: 'Dotted path of the field (`scopes.1`), empty for the whole request' }),
          issue: z.string(),
        }),
      ),
      request_id: z.string(),
    }),
  })
  .meta({ id: 'ErrorBody', description: 'The one error shape of every route' });

export const meta = z.strictObject({ timestamp: instant, request_id: z.string() });
export const pageMeta = z.strictObject({
  timestamp: instant,
  request_id: z.string(),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
});

/** Named limits and credits, on a key or an identity (docs/limits.md): absent when it has none. */
export const meterFields = {
  limits: z
    .array(
      z.strictObject({
        name: z.string(),
        limit: z.int().positive(),
        window_seconds: z.int().positive(),
        scope: z.string().optional().meta({ description: 'The limit counts only verifications asking a scope this one covers' }),
      }),
    )
    .optional()
    .meta({ description: 'Named limits; absent when there are none' }),
  credits: z
    .strictObject({
      remaining: z.int().min(0).meta({ description: 'Everything still spendable: what is left of the refill (or balance) and unexpired grants' }),
      refill: z
        .strictObject({ interval: z.enum(['daily', 'monthly']), amount: z.int().positive(), day_of_month: z.int().min(1).max(31).optional() })
        .nullable(),
    })
    .optional()
    .meta({ description: 'Credits each verification spends (its `cost`); absent: unlimited' }),
};

/** A key's configuration and facts, as every read answers it (never its value). */
export const keyFields = {
  id: keyId,
  team_id: z.guid(),
  ...keyNameAndRestrictions(keyType, environment),
  rate_limit: z.int().positive().meta({ description: 'Requests per hour' }),
  expires_at: instant.nullable(),
  created_by: z.string(),
  key_prefix: z.string().meta({ description: 'The first 20 characters of the value' }),
  last_four: z.string(),
  is_active: z.boolean(),
  created_at: instant,
  last_used_at: instant.nullable(),
  description: z.string(),
  on_leak: z.enum(ON_LEAK_VALUES).meta({
    description: 'What a report of the value as leaked does: `disable` stops the key at once, `notify` leaves it working (both audit it and send `key.leaked`)',
  }),
  identity_id: z.string().optional().meta({
    description: 'The identity of the team the key belongs to (a 26-character ULID); absent when it belongs to none',
    example: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ',
  }),
  ...meterFields,
};

export const apiKeySchema = z
  .strictObject({
    ...keyFields,
    state: z.enum(KEY_STATES as [string, ...string[]]),
    transition_ends_at: instant.nullable().meta({ description: 'End of the grace period while the old value still works' }),
    updated_at: instant,
    deleted_at: instant.optional(),
  })
  .meta({ id: 'ApiKey' });

export const keyResponseSchema = z.strictObject({ data: apiKeySchema, meta }).meta({ id: 'KeyResponse' });
