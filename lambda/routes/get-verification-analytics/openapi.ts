/** The reference of get-verification-analytics (read by api/openapi.ts only). */
import * as z from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { managementErrors, ok, type Fits } from '../../http/openapi-common';
import { count, instant, keyId } from '../../http/response-schemas';
import { identityId } from '../../http/identity-response-schemas';
import { OUTCOMES } from '../../domain/verification-tally';
import { analyticsRequestSchema } from './schema';
import type { AnalyticsAnswer } from '../../use-cases/verification-analytics';

const groups = z.enum(['outcome', 'scope', 'key']);

export const analyticsResponseSchema = z
  .strictObject({
    data: z
      .array(
        z.strictObject({
          start: instant.meta({ description: "The bucket's start (minute, hour or UTC day)" }),
          outcome: z.enum(OUTCOMES).optional().meta({ description: 'With group_by=outcome' }),
          scope: z.string().max(2048).nullable().optional().meta({ description: 'With group_by=scope: the scopes asked, space-separated; null for none' }),
          key_id: keyId.optional().meta({ description: 'With group_by=key' }),
          identity_id: identityId.nullable().optional().meta({ description: "With group_by=key: the key's identity when it was verified" }),
          count,
        }),
      )
      .max(1000)
      .meta({ description: 'Sorted by start; without group_by one row per bucket (0 included), with it the groups that have a count, busiest first' }),
    meta: z.strictObject({
      timestamp: instant,
      request_id: z.string(),
      granularity: z.enum(['minute', 'hour', 'day']),
      from: instant.meta({ description: 'The first bucket’s start' }),
      to: instant.meta({ description: 'The end of the last bucket' }),
      group_by: z.array(groups).max(3),
      keys: z
        .array(z.strictObject({ key_id: keyId, name: z.string().max(255).nullable(), deleted: z.boolean() }))
        .max(100)
        .optional()
        .meta({
          description:
            'With group_by=key: the keys the rows name, their names, and whether each is deleted (name null once its tombstone is gone, after 90 days; its counts stay)',
        }),
    }),
  })
  .meta({ id: 'VerificationAnalyticsResponse' });

export const operation: ZodOpenApiOperationObject = {
  operationId: 'getVerificationAnalytics',
  summary: "A team's verification counts",
  description:
    'Every verification of a value that belongs to a key, counted by key, identity, the scope asked and the outcome, per minute (kept 24 hours), hour (90 days) or UTC day (800 days). Visible within 60 s. `group_by` may be given once per dimension; grouped by key, the busiest `limit` keys. More than 1,000 rows, a range its granularity no longer holds, or `from` after `to`: 400.',
  tags: ['Analytics'],
  requestParams: { query: analyticsRequestSchema },
  responses: { ...ok('200', 'Counts per bucket', analyticsResponseSchema), ...managementErrors({ '404': true }) },
};

export const answerFitsReference = true satisfies Fits<AnalyticsAnswer['rows'], z.output<typeof analyticsResponseSchema>['data']>;
