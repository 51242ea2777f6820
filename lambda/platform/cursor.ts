/**
 * Opaque page cursors: the position after the last item of a page, as
 * base64url JSON. A cursor is only ever decoded back into the same kind of
 * position (the same attributes, the same partition), so a forged or
 * foreign cursor is a 400, never a read elsewhere.
 */
import { invalidRequest } from '../contract/errors';

export function encodeCursor(position: Readonly<Record<string, string>>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/**
 * The position a cursor names, if it has exactly `attributes` (strings) and
 * `belongs` accepts it; otherwise a 400 naming `cursor`.
 */
export function decodeCursor(cursor: string, attributes: readonly string[], belongs: (position: Record<string, string>) => boolean): Record<string, string> {
  const invalid = invalidRequest([{ field: 'cursor', issue: 'is not a cursor this listing returned' }]);
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (typeof position !== 'object' || position === null || Array.isArray(position)) throw invalid;
  const entries = Object.entries(position);
  const exact =
    entries.length === attributes.length && entries.every(([name, value]) => attributes.includes(name) && typeof value === 'string' && value.length <= 512);
  if (!exact || !belongs(position as Record<string, string>)) throw invalid;
  return position as Record<string, string>;
}
