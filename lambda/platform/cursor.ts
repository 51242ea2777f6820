/**
 * Opaque page cursors: the position after the last item of a page, as
 * base64url JSON. A cursor is decoded only into the exact key shape of the
 * query it is used with (lambda/contract/tables.ts `pagePositions`: every
 * attribute present, a non-empty string of the query's own form, the
 * caller's own partition), so a forged, altered, foreign or stale cursor is
 * a 400 INVALID_CURSOR before anything reaches the store, never a read
 * elsewhere and never a storage error.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import type { PositionShape } from '../contract/tables';

export function encodeCursor(position: Readonly<Record<string, string>>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

const invalidCursor = () =>
  new ApiError(ErrorCode.INVALID_CURSOR, 'The cursor is not one this listing returned: list again without a cursor.', [
    { field: 'cursor', issue: 'is not a cursor this listing returned' },
  ]);

/** Whether `value` is what `expected` (a literal or a pattern) allows. */
const fits = (value: unknown, expected: string | RegExp): value is string =>
  typeof value === 'string' && value !== '' && value.length <= 512 && (typeof expected === 'string' ? value === expected : expected.test(value));

/** The position a cursor names, when it has exactly `shape`; otherwise a 400 INVALID_CURSOR. */
export function decodeCursor(cursor: string, shape: PositionShape): Record<string, string> {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
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
