/** The reference of get-api-key-usage: its response schema and its OpenAPI operation (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { count, instant, keyId, meta } from '../../http/response-schemas';
import { usageRequestSchema } from './schema';
import type { UsageReport } from '../../use-cases/usage-report';

export const usageResponseSchema = z
  .strictObject({
    data: z.strictObject({
      key_id: keyId,
      deleted: z
        .boolean()
        .meta({ description: 'The key has been deleted: its figures stay readable, through its tombstone for 90 days, then by a live key of its team' }),
      total_requests: count,
      last_used_at: instant.nullable(),
      usage_last_30_days: count,
      daily: z.array(z.strictObject({ date: z.iso.date(), requests: count })).meta({ description: 'The last `days` days, oldest first, zero-filled' }),
      monthly: z
        .array(z.strictObject({ month: z.string().regex(/^\d{4}-\d{2}$/), requests: count }))
        .meta({ description: 'Every month with a request, oldest first' }),
      transition: z
        .strictObject({ old_value_requests: count, new_value_requests: count, transition_ends_at: instant })
        .nullable()
        .meta({ description: 'During a grace period: uses of the old and the new value' }),
    }),
    meta,
  })
  .meta({ id: 'UsageResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getKeyUsage',
  summary: "A key's usage",
  tags: ['Usage'],
  requestParams: { query: usageRequestSchema },
  responses: { ...ok('200', 'Totals, days, months and the transition split', usageResponseSchema), ...managementErrors({ '404': true }) },
};

/** The usage report fits the documented figures. */
export const answerFitsReference = true satisfies Fits<UsageReport, z.output<typeof usageResponseSchema>['data']>;
