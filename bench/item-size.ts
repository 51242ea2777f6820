/**
 * An item's size by DynamoDB's rules (docs: "Item sizes and formats"): the
 * sum of its attributes' names and values, where a string counts its UTF-8
 * bytes, a number about one byte per two significant digits plus one, a
 * boolean or null one byte, and a map or list three bytes plus one byte per
 * element plus its elements (with the element names, for a map). A write
 * costs one unit per started kilobyte of the item.
 */
export function itemSizeBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueSize(value), 0);
}

function numberSize(value: number): number {
  const digits = String(Math.abs(value)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '') || '0';
  return Math.ceil(digits.length / 2) + 1;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value).reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueSize(element), 0);
  }
  return 0;
}
