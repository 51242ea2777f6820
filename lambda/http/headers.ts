/**
 * The one header reader. API Gateway (and the local server) hand headers
 * over in the client's casing: names are compared case-insensitively, and a
 * name is only ever looked up as an own property of the map, so a header
 * named like an Object.prototype member is just a header.
 */
export type HeaderMap = Readonly<Record<string, string | undefined>> | null | undefined;

/** A header by case-insensitive name; the first one when the map somehow holds several spellings. */
export function header(source: { readonly headers?: HeaderMap }, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(source.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

/** API Gateway's `multiValueHeaders`: every value of every header, in the client's casing. */
export type MultiHeaderMap = Readonly<Record<string, readonly string[] | undefined>> | null | undefined;

/**
 * Every value of header `name` (any casing), in order: from
 * `multiValueHeaders` when the event has them (API Gateway and the local
 * server always do), else from `headers`.
 */
export function headerValues(source: { readonly headers?: HeaderMap; readonly multiValueHeaders?: MultiHeaderMap }, name: string): string[] {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  if (source.multiValueHeaders) {
    for (const [key, list] of Object.entries(source.multiValueHeaders)) if (key.toLowerCase() === wanted) values.push(...(list ?? []));
    return values;
  }
  for (const [key, value] of Object.entries(source.headers ?? {})) if (key.toLowerCase() === wanted && value !== undefined) values.push(value);
  return values;
}

/** How many times the request carries header `name` (any casing). */
export function headerCount(source: { readonly headers?: HeaderMap; readonly multiValueHeaders?: MultiHeaderMap }, name: string): number {
  return headerValues(source, name).length;
}
