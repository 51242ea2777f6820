/**
 * Opaque page cursors: the position after the last item of a page, as
 * base64url JSON, then `.` and a MAC of it (HMAC-SHA256 under the stack's
 * cursor signing key, 128 bits, base64url). Only a cursor the service
 * issued is accepted: a position written by hand, even a well-formed one in
 * the caller's own listing, is refused. A signed cursor is then decoded
 * only into the exact key shape of the query it is used with
 * (each listed entity's page in lambda/store/entities/: every attribute present, a
 * non-empty string of the query's own form, the caller's own partition), so
 * a forged, altered, foreign or stale cursor is a 400 INVALID_CURSOR before
 * anything reaches the store, never a read elsewhere and never a storage
 * error.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, ErrorCode } from '../contract/errors';

/**
 * The exact key of the last item of a page, for each paged query: each
 * attribute a literal or a pattern, and the attributes that must be equal.
 * A page cursor is accepted only in exactly this shape, so what reaches
 * DynamoDB as ExclusiveStartKey is always a key the query itself could have
 * returned (store/entities/entity.ts derives each from the entity's keys).
 */
export interface PositionShape {
  readonly attributes: Readonly<Record<string, string | RegExp>>;
  readonly equal?: readonly (readonly [string, string])[];
}

/** Bytes of the MAC kept in a cursor (128 bits). */
const TAG_BYTES = 16;

function tagOf(payload: string, signingKey: string | undefined): Buffer {
  // The stack sets it on every function that lists (a route's declared settings): missing is a deployment error.
  if (!signingKey) throw new Error('No cursor signing key: CURSOR_SIGNING_KEY is not set for this function');
  return createHmac('sha256', signingKey).update(`cursor\n${payload}`).digest().subarray(0, TAG_BYTES);
}

/** The cursor of a position, signed with `signingKey` (the settings' `cursorSigningKey`). */
export function encodeCursor(position: Readonly<Record<string, string>>, signingKey: string | undefined): string {
  const payload = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
  return `${payload}.${tagOf(payload, signingKey).toString('base64url')}`;
}

const invalidCursor = () =>
  new ApiError(ErrorCode.INVALID_CURSOR, 'The cursor is not one this listing returned: list again without a cursor.', [
    { field: 'cursor', issue: 'is not a cursor this listing returned' },
  ]);

/** Whether `value` is what `expected` (a literal or a pattern) allows. */
const fits = (value: unknown, expected: string | RegExp): value is string =>
  typeof value === 'string' && value !== '' && value.length <= 512 && (typeof expected === 'string' ? value === expected : expected.test(value));

/** The position a cursor names, when the service signed it and it has exactly `shape`; otherwise a 400 INVALID_CURSOR. */
export function decodeCursor(cursor: string, shape: PositionShape, signingKey: string | undefined): Record<string, string> {
  const dot = cursor.lastIndexOf('.');
  const payload = cursor.slice(0, Math.max(dot, 0));
  const tag = Buffer.from(cursor.slice(dot + 1), 'base64url');
  if (dot < 1 || tag.length !== TAG_BYTES || !timingSafeEqual(tag, tagOf(payload, signingKey))) throw invalidCursor();
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (typeof position !== 'object' || position === null || Array.isArray(position)) throw invalidCursor();
  // The cursor's own attributes (a `__proto__` key of the JSON is one of them, not a prototype).
  const fields = new Map<string, unknown>(Object.entries(position));
  const expected = Object.entries(shape.attributes);
  const exact =
    fields.size === expected.length &&
    expected.every(([name, form]) => fields.has(name) && fits(fields.get(name), form)) &&
    (shape.equal ?? []).every(([a, b]) => fields.get(a) === fields.get(b));
  if (!exact) throw invalidCursor();
  return Object.fromEntries(expected.map(([name]) => [name, String(fields.get(name))]));
}
