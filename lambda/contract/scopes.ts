/**
 * Permission scopes.
 *
 * Grammar: `<area>.<resource>:<action>`, `<area>.*:<action>` (every resource
 * of an area) and `<area>.manage` (administration of an area; covers only
 * itself). Segments are lowercase letters, digits, `_` and `-`, starting with
 * a letter.
 */

const SEGMENT = '[a-z][a-z0-9_-]{0,39}';
/** The longest scope the grammar allows: three 40-character segments and their two separators. */
export const MAX_SCOPE_LENGTH = 3 * 40 + 2;
const SCOPE_PATTERN = new RegExp(`^(?:${SEGMENT}\\.(?:${SEGMENT}|\\*):${SEGMENT}|${SEGMENT}\\.manage)$`);

/** The scope that lets a key manage the team's keys. */
export const KEYS_MANAGE = 'keys.manage';
/** Scopes of a key created without `scopes`. */
export const DEFAULT_SCOPES: readonly string[] = ['enc.tiles:read'];
/** Scopes of a team's first key, written by the bootstrap command. */
export const BOOTSTRAP_SCOPES: readonly string[] = [KEYS_MANAGE, 'enc.*:read'];

export function isValidScope(scope: string): boolean {
  return SCOPE_PATTERN.test(scope);
}

interface ParsedScope {
  area: string;
  resource: string | undefined; // undefined for `<area>.manage`
  action: string | undefined;
}

function parse(scope: string): ParsedScope | undefined {
  if (!isValidScope(scope)) return undefined;
  const manage = /^([^.]+)\.manage$/.exec(scope);
  if (manage) return { area: manage[1], resource: undefined, action: undefined };
  const [areaAndResource, action] = scope.split(':');
  const dot = areaAndResource.indexOf('.');
  return { area: areaAndResource.slice(0, dot), resource: areaAndResource.slice(dot + 1), action };
}

/** Whether the held scope grants the needed one. */
export function scopeCovers(held: string, needed: string): boolean {
  if (held === needed) return isValidScope(held);
  const h = parse(held);
  const n = parse(needed);
  if (!h || !n) return false;
  // `<area>.manage` grants exactly itself, nothing else.
  if (h.resource === undefined || n.resource === undefined) return false;
  return h.area === n.area && h.action === n.action && h.resource === '*';
}

/** Whether any of the held scopes grants the needed one. */
export function anyScopeCovers(held: readonly string[], needed: string): boolean {
  return held.some((scope) => scopeCovers(scope, needed));
}

/** The requested scopes that none of the held scopes grant. */
export function uncoveredScopes(held: readonly string[], requested: readonly string[]): string[] {
  return requested.filter((scope) => !anyScopeCovers(held, scope));
}
