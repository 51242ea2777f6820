import * as z from 'zod/mini';
import { then } from '../../http/schemas/common';

/** The most tokens one report may carry. */
export const MAX_REPORTED_TOKENS = 5_000;

const reportText = (max: number) => z.string({ error: 'must be a string' }).check(z.maxLength(max, `must be at most ${max} characters`));

/**
 * GitHub's report: `[{token, type, url, source}]` (`source` also as
 * `Source`). Fields GitHub may add later are ignored. A problem names the
 * entry and field, never what the token holds.
 */
export const githubReportSchema = z
  .array(
    then(
      z.object({
        token: z.string({ error: 'must be a string' }).check(z.minLength(1, 'must not be empty'), z.maxLength(1000, 'must be at most 1000 characters')),
        type: reportText(200),
        url: z._default(reportText(4096), ''),
        source: z.optional(reportText(200)),
        Source: z.optional(reportText(200)),
      }),
      ({ token, type, url, source, Source }) => ({ token, type, url, source: source ?? Source ?? '' }),
    ),
    { error: 'must be an array of reported tokens' },
  )
  .check(z.maxLength(MAX_REPORTED_TOKENS, `must hold at most ${MAX_REPORTED_TOKENS} tokens`));

export type GithubReport = z.output<typeof githubReportSchema>;
