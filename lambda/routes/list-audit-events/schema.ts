/** The query of the audit trail: a key's, or the team's. */
import * as z from 'zod/mini';
import { countParameter, cursorParameter, keyIdSchema, teamIdSchema } from '../../http/schemas/common';

export const auditEventsRequestSchema = z
  .strictObject({
    key_id: z.optional(keyIdSchema),
    team_id: z.optional(teamIdSchema),
    /** `chain`: the team's whole hash chain (keys, endpoints, identities, credits, settings) in seq order, oldest first. */
    order: z.optional(z.enum(['newest', 'chain'])),
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
      } else if (query.order === 'chain' && query.team_id === undefined) {
        ctx.addIssue({ code: 'custom', path: ['order'], message: "chain reads a team's whole chain: give team_id, not key_id" });
      }
    }),
  );
export type AuditEventsRequest = z.output<typeof auditEventsRequestSchema>;
