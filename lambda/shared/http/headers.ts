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
