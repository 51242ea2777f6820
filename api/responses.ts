/**
 * The response bodies of every route, as zod schemas: the other half of the
 * one schema source (the request schemas live with the handlers, in
 * lambda/shared/http/schemas/). They describe what the handlers answer and
 * are used for the OpenAPI document (api/openapi.ts) and to check every
 * response the tests receive against it; the handlers do not import them.
 */
import * as z from 'zod';
import { ErrorCode } from '../lambda/contract/errors';
import { auditEventSchema } from '../lambda/domain/audit-event-schema';
import { KEY_STATES } from '../lambda/domain/key-view';

const instant = z.iso.datetime({ offset: true }).meta({ id: 'Timestamp', description: 'ISO 8601 timestamp', example: '2026-11-23T12:00:00.000Z' });
const keyId = z.string().meta({ description: 'Key id (a 26-character ULID)', example: '01JDQ4W1V8T6Y3M2K9P0RS5XYZ' });
const keyType = z.enum(['pk', 'sk']).meta({ description: '`pk` public (restricted by `domains`) or `sk` secret' });
const environment = z.enum(['test', 'live']);
const count = z.int().min(0);

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

const meta = z.strictObject({ timestamp: instant, request_id: z.string() });
const pageMeta = z.strictObject({
  timestamp: instant,
  request_id: z.string(),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
});

/** A key's configuration and facts, as every read answers it (never its value). */
const keyFields = {
  id: keyId,
  team_id: z.guid(),
  name: z.string(),
  type: keyType,
  environment,
  scopes: z.array(z.string()),
  domains: z.array(z.string()),
  ip_whitelist: z.array(z.string()),
  rate_limit: z.int().positive().meta({ description: 'Requests per hour' }),
  expires_at: instant.nullable(),
  created_by: z.string(),
  key_prefix: z.string().meta({ description: 'The first 20 characters of the value' }),
  last_four: z.string(),
  is_active: z.boolean(),
  created_at: instant,
  last_used_at: instant.nullable(),
  description: z.string(),
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

export const createdKeySchema = z
  .strictObject({ ...keyFields, key: z.string().nullable().meta({ description: 'The full value: shown here once, never again (null when an `Idempotency-Key` replays the answer)' }) })
  .meta({ id: 'CreatedApiKey' });

export const createKeyResponseSchema = z.strictObject({ data: createdKeySchema, meta }).meta({ id: 'CreateKeyResponse' });

export const regenerateKeyResponseSchema = z
  .strictObject({
    success: z.literal(true),
    new_key: z.string().nullable().meta({ description: 'The new value: shown here once, never again (null when an `Idempotency-Key` replays the answer)' }),
    key_info: z.strictObject({
      id: keyId,
      name: z.string(),
      key_type: keyType,
      environment,
      key_prefix: z.string(),
      last_four: z.string(),
      transition_ends_at: instant,
      regenerated_at: instant,
    }),
    migration_info: z.strictObject({ old_key_expires_at: instant, grace_period_days: count, both_keys_valid: z.boolean() }),
  })
  .meta({ id: 'RegenerateKeyResponse' });

export const deleteKeyResponseSchema = z
  .strictObject({
    success: z.literal(true),
    message: z.string(),
    deleted_key: z.strictObject({
      id: keyId,
      name: z.string(),
      key_type: keyType,
      environment,
      last_four: z.string(),
      created_at: instant,
      deleted_at: instant,
      deleted_by: z.string(),
    }),
    audit_info: z.strictObject({ reason: z.string().nullable(), last_used_at: instant.nullable(), total_requests: count, usage_last_30_days: count }),
  })
  .meta({ id: 'DeleteKeyResponse' });

export const verifyKeyResponseSchema = z
  .strictObject({
    valid: z.boolean(),
    code: z.enum(['VALID', 'NOT_FOUND', 'EXPIRED', 'REVOKED', 'INACTIVE', 'IP_NOT_ALLOWED', 'ORIGIN_NOT_ALLOWED', 'SCOPE_DENIED', 'RATE_LIMITED']),
    key: z.strictObject({ id: keyId, team_id: z.guid(), type: keyType, environment, scopes: z.array(z.string()) }).optional(),
    ratelimit: z
      .strictObject({ limit: count, remaining: count, reset: z.int().meta({ description: 'End of the current hour, epoch seconds' }) })
      .optional(),
  })
  .meta({ id: 'VerifyKeyResponse' });

export const keyResponseSchema = z.strictObject({ data: apiKeySchema, meta }).meta({ id: 'KeyResponse' });
export const keyListResponseSchema = z.strictObject({ data: z.array(apiKeySchema), meta: pageMeta }).meta({ id: 'KeyListResponse' });

export const usageResponseSchema = z
  .strictObject({
    data: z.strictObject({
      key_id: keyId,
      deleted: z.boolean().meta({ description: 'The key has been deleted: its figures stay readable, through its tombstone for 90 days, then by a live key of its team' }),
      total_requests: count,
      last_used_at: instant.nullable(),
      usage_last_30_days: count,
      daily: z.array(z.strictObject({ date: z.iso.date(), requests: count })).meta({ description: 'The last `days` days, oldest first, zero-filled' }),
      monthly: z.array(z.strictObject({ month: z.string().regex(/^\d{4}-\d{2}$/), requests: count })).meta({ description: 'Every month with a request, oldest first' }),
      transition: z
        .strictObject({ old_value_requests: count, new_value_requests: count, transition_ends_at: instant })
        .nullable()
        .meta({ description: 'During a grace period: uses of the old and the new value' }),
    }),
    meta,
  })
  .meta({ id: 'UsageResponse' });

// The archive's own event schema (zod/mini, shared with the handlers), named in the document's components.
z.globalRegistry.add(auditEventSchema, { id: 'AuditEvent' });

export const auditEventsResponseSchema = z
  .strictObject({ data: z.array(auditEventSchema), meta: pageMeta })
  .meta({ id: 'AuditEventsResponse' });
