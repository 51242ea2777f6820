/**
 * The one way to hold names a client chooses (headers, query parameters):
 * a map without a prototype, so `__proto__`, `constructor` or
 * `hasOwnProperty` are just names. Used by the local server to build events
 * and by the handlers to read them (lambda/http/middleware.ts).
 */
export function clientNamedMap<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const map = Object.create(null) as Record<string, T>;
  for (const [name, value] of entries) map[name] = value;
  return map;
}
