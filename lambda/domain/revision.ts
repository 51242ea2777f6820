/**
 * Optimistic concurrency on a key (RFC 9110 §13.1.1): reading a key and
 * updating it answer with an `ETag` naming the key's revision, and a
 * change sent with `If-Match` is made only while the key is still at one of
 * the tags given (`*`: whatever its revision). Otherwise 412, and nothing
 * is written but the caller's use. Two people editing the same key's scopes
 * from the console no longer lose one another's change without a word.
 *
 * The tag names the revision of the key's settings and state: every update,
 * regeneration and deletion moves it, its use does not (`last_used_at` and
 * usage figures change without it), nor does the end of a grace period.
 * Answers are `Cache-Control: no-store`, so no cache ever validates with it.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import type { KeyResource } from './key-view';
import type { KeyItem } from './model';

export const IF_MATCH_HEADER = 'If-Match';
export const ETAG_HEADER = 'ETag';

/** What `If-Match` asks for: any current key, or one at one of these tags. */
export type Precondition = { readonly any: true } | { readonly any: false; readonly tags: readonly string[]; readonly weak: readonly string[] };

/** The key's entity tag: its revision, quoted (`"3"`). */
export function entityTagOf(key: Pick<KeyItem, 'revision'>): string {
  return `"${key.revision ?? 0}"`;
}

/** A key's resource with its entity tag: what a key's read and its update answer (the tag in `ETag`). */
export interface TaggedKey {
  readonly resource: KeyResource;
  readonly entityTag: string;
}

/** The 412, with the key's current tag in `ETag`. */
function preconditionFailed(current: string, message: string, issue: string): ApiError {
  return new ApiError(ErrorCode.PRECONDITION_FAILED, message, [{ field: IF_MATCH_HEADER, issue }], { [ETAG_HEADER]: current });
}

/**
 * Throws the 412 unless `item` satisfies the request's `If-Match` (no
 * header: always); `noun` names what was changed in the answer (a key, a
 * webhook endpoint).
 */
export function assertPrecondition(precondition: Precondition | undefined, item: Pick<KeyItem, 'revision'>, noun = 'key'): void {
  if (precondition === undefined || precondition.any) return;
  const current = entityTagOf(item);
  if (precondition.tags.includes(current)) return;
  // The key's own tag, weakened on the way (a proxy that compresses may do so): say that, not that the key changed.
  if (precondition.weak.includes(current)) {
    throw preconditionFailed(
      current,
      `If-Match named the ${noun}'s ETag as a weak tag (W/${current}), which never matches: send it as the ETag header gave it, ${current}.`,
      `is a weak tag (W/${current}), which never matches`,
    );
  }
  throw preconditionFailed(
    current,
    `The ${noun} changed since it was read: If-Match does not match the ${noun}'s ETag ${current}. Read it again, then send the change again if it still applies.`,
    `does not match the ${noun}'s ETag ${current}`,
  );
}
