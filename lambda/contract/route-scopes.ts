/**
 * The Lambda authorizer's route table grammar, `{"<METHOD> /<path>": "<scope>"}`
 * or `{"<METHOD> /<path>": {"scope": "<scope>", "cost": <credits>}}`
 * (`AUTHORIZER_ROUTE_SCOPES`, plus `AUTHORIZER_SCOPE` for every route). One
 * reading serves the authorizer's cold start and the CDK context check, so
 * synthesis refuses exactly the tables the authorizer would.
 */
import { isValidScope } from './scopes';

/** One route → scope entry. */
export interface RouteScope {
  /** `METHOD/path` as in an execute-api ARN after the stage, e.g. `GET/tiles/*`. */
  readonly resource: string;
  /** Matches `resource` against a request's `METHOD/path`: `*` spans any characters, `/` included (IAM resource semantics). */
  readonly pattern: RegExp;
  readonly scope: string;
  /** Credits a call of the route costs (docs/limits.md); absent: 1. */
  readonly cost?: number;
}

/** The most credits one call may cost. */
export const MAX_ROUTE_COST = 1000;

export const ROUTE_METHODS: readonly string[] = ['*', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const ROUTE = /^(\S+) (\/\S*)$/;
const TABLE_SHAPE = 'a JSON object {"<METHOD> /<path>": "<scope>"}';

function globPattern(resource: string): RegExp {
  const escaped = resource.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/** Reads one entry; a string says what is wrong with it. */
export function parseRouteScope(route: string, scope: unknown): RouteScope | string {
  const match = ROUTE.exec(route);
  if (!match || !ROUTE_METHODS.includes(match[1].toUpperCase())) {
    return `"${route}" must be "<METHOD> /<path>" (METHOD one of ${ROUTE_METHODS.join(', ')}), e.g. "GET /tiles/*"`;
  }
  const entry = typeof scope === 'object' && scope !== null && !Array.isArray(scope) ? (scope as Record<string, unknown>) : { scope };
  const extra = Object.keys(entry).filter((name) => name !== 'scope' && name !== 'cost');
  if (extra.length > 0) return `"${route}" names ${extra.join(', ')}: an entry is a scope, or {"scope", "cost"}`;
  if (typeof entry.scope !== 'string' || !isValidScope(entry.scope)) return `"${String(entry.scope)}" is not a valid scope`;
  const { cost } = entry;
  if (cost !== undefined && (typeof cost !== 'number' || !Number.isInteger(cost) || cost < 0 || cost > MAX_ROUTE_COST)) {
    return `"${route}" has cost ${String(cost)}: a whole number of credits from 0 to ${MAX_ROUTE_COST}`;
  }
  const resource = `${match[1].toUpperCase()}/${match[2].slice(1)}`;
  return { resource, pattern: globPattern(resource), scope: entry.scope, ...(cost === undefined ? {} : { cost }) };
}

/** What a table setting reads as: its entries, or why the whole setting or some entries are wrong. */
export type RouteScopeTable =
  { readonly kind: 'table'; readonly routes: RouteScope[]; readonly problems: string[] } | { readonly kind: 'not-a-table'; readonly problem: string };

/** Reads a whole table (an object, or its JSON text); `problems` lists every bad entry. */
export function parseRouteScopeTable(table: unknown): RouteScopeTable {
  const notATable = { kind: 'not-a-table', problem: `must be ${TABLE_SHAPE}` } as const;
  let parsed = table;
  if (typeof table === 'string') {
    try {
      parsed = JSON.parse(table);
    } catch {
      return notATable;
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return notATable;
  const routes: RouteScope[] = [];
  const problems: string[] = [];
  for (const [route, scope] of Object.entries(parsed)) {
    const entry = parseRouteScope(route, scope);
    if (typeof entry === 'string') problems.push(entry);
    else routes.push(entry);
  }
  return { kind: 'table', routes, problems };
}
