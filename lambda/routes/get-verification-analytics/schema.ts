/** The query of a team's verification analytics (docs/analytics.md). */
import * as z from 'zod/mini';
import { countParameter, instantParameter, keyIdSchema, teamIdSchema } from '../../http/schemas/common';
import { identityIdSchema } from '../../http/schemas/identities';

const instant = instantParameter();

const GROUPS = ['outcome', 'scope', 'key'] as const;

export const analyticsRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  key_id: z.optional(keyIdSchema),
  identity_id: z.optional(identityIdSchema),
  from: instant,
  to: instant,
  granularity: z.enum(['minute', 'hour', 'day'], { error: 'must be "minute", "hour" or "day"' }),
  /** Given once per dimension (`group_by=outcome&group_by=key`); none: one total per bucket. */
  group_by: z.optional(
    z
      .array(z.enum(GROUPS, { error: 'must be "outcome", "scope" or "key"' }), { error: 'must be "outcome", "scope" or "key"' })
      .check(z.maxLength(3, 'may be given at most 3 times')),
  ),
  /** With group_by=key: the busiest keys shown. */
  limit: countParameter(1, 100, 10),
});
export type AnalyticsQuery = z.output<typeof analyticsRequestSchema>;
