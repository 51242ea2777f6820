/**
 * `If-Match` as a request carries it (RFC 9110 §13.1.1): parsed into the
 * precondition the key's revision rules check (domain/revision.ts).
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { ETAG_HEADER, IF_MATCH_HEADER, type Precondition } from '../domain/revision';
import { headerValues, type HeaderMap, type MultiHeaderMap } from './headers';

export { ETAG_HEADER, IF_MATCH_HEADER };

/** One entity tag at `lastIndex`, then a comma or the end: `W/` (weak) and the quoted tag. */
const ENTITY_TAG = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;

const malformed = () =>
  new ApiError(ErrorCode.VALIDATION_FAILED, 'The If-Match header must be * or a list of entity tags, such as "3", as the ETag header gave them.', [
    { field: IF_MATCH_HEADER, issue: 'must be * or a list of entity tags, such as "3"' },
  ]);

/**
 * The request's `If-Match` (every occurrence, joined as one list), or
 * undefined without one. Weak tags (`W/"3"`) are accepted and never match
 * (If-Match compares strongly).
 */
export function preconditionOf(event: { readonly headers?: HeaderMap; readonly multiValueHeaders?: MultiHeaderMap }): Precondition | undefined {
  const values = headerValues(event, IF_MATCH_HEADER);
  if (values.length === 0) return undefined;
  const text = values.join(', ').trim();
  if (text === '*') return { any: true };
  if (text === '' || text.length > 1024) throw malformed();
  const tags: string[] = [];
  const weak: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < text.length) {
    const start = ENTITY_TAG.lastIndex;
    const match = ENTITY_TAG.exec(text);
    if (!match || ENTITY_TAG.lastIndex === start) throw malformed();
    (match[1] ? weak : tags).push(match[2] as string);
  }
  return { any: false, tags, weak };
}
