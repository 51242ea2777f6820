import * as z from 'zod/mini';
import { text } from '../../http/schemas/common';

/** The longest value this service issues (domain/key-values.ts refuses longer ones unread). */
const MAX_VALUE_LENGTH = 128;

/**
 * A team's leak report: the value it found, and where. The value is only
 * hashed and looked up: it is never stored, logged or echoed (an error about
 * it names the field, never its content).
 */
export const reportLeakedKeyRequestSchema = z.strictObject({
  key: z
    .string({ error: 'must be the leaked value, as a string' })
    .check(
      z.minLength(1, 'must be the leaked value'),
      z.maxLength(MAX_VALUE_LENGTH, `must be at most ${MAX_VALUE_LENGTH} characters (no value of this service is longer)`),
    ),
  reason: z.optional(text(1000)),
});

export type ReportLeakedKeyRequest = z.output<typeof reportLeakedKeyRequestSchema>;
