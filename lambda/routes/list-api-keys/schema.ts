/** The query of the key list (checked as strictly as a body: unknown parameters are refused). */
import * as z from 'zod/mini';
import { KEY_STATES } from '../../domain/key-view';
import { countParameter, cursorParameter, instantParameter, teamIdSchema, wholeNumberParameter } from '../../http/schemas/common';
import { identityIdSchema } from '../../http/schemas/identities';

export const listKeysRequestSchema = z.strictObject({
  team_id: teamIdSchema,
  environment: z.optional(z.enum(['test', 'live'], { error: 'must be "test" or "live"' })),
  type: z.optional(z.enum(['pk', 'sk'], { error: 'must be "pk" or "sk"' })),
  state: z.optional(z.enum(KEY_STATES as [string, ...string[]], { error: `must be one of ${KEY_STATES.join(', ')}` })),
  /** Only the keys that name this identity (a deleted key names none). */
  identity_id: z.optional(identityIdSchema),
  /** Only the keys with no VALID use in the last N days (never used: created more than N days ago). */
  unused_for_days: wholeNumberParameter(1, 3650),
  /** Only the keys whose `expires_at` is before this instant (keys that never expire are left out). */
  expires_before: z.optional(instantParameter()),
  limit: countParameter(1, 100, 20),
  cursor: cursorParameter,
});
export type ListKeysRequest = z.output<typeof listKeysRequestSchema>;
