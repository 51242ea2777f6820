/**
 * What a route declares about itself (lambda/routes/<route>/route.ts), with
 * no dependency: the CDK app, the local server, the OpenAPI builder and the
 * tests read the declarations through the one list of routes,
 * lambda/routes/index.ts.
 */
import type { Env } from './env-names';
import type { PortName } from './ports';
import type { StoreOperation } from './store-operations';

/** Every route's path is this prefix and its name. */
export const ROUTE_PREFIX = '/functions/v1/';

export interface RouteDeclaration {
  /** The route's name: its path's last segment, its folder under lambda/routes/, its function's name. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /**
   * `manager`: a Bearer `sk` key holding `keys.manage` (the management
   * authorizer, the team's usage plan, the management throttle).
   * `public`: no Authorization header (the value to check is in the body).
   * `partner`: no Authorization header; the body is signed by a partner
   * (GitHub's secret scanning), and the handler checks the signature first.
   */
  readonly caller: 'manager' | 'public' | 'partner';
  /**
   * Which managers may call it. `live`: a live key only (a test key gets
   * 403, whatever the request): the route reaches what live keys do, such
   * as webhook endpoints, which receive every key's events. Default: a key
   * of either environment (what it may act on is checked per key).
   */
  readonly reach?: 'live';
  /** Where the input is: a JSON body, or the query string (GET). */
  readonly input: 'body' | 'query';
  /** Query parameters that may be given more than once (each then arrives as a list); every other one must be given once. */
  readonly repeatable?: readonly string[];
  /** The handler answers the path's CORS preflight (OPTIONS) itself. Default: no OPTIONS on the path (405). */
  readonly preflight?: boolean;
  /** What the function does, after `METHOD path: ` in its description. */
  readonly summary: string;
  /** The storage operations the function runs (its DynamoDB grants, checked by test/architecture/store-operations.test.ts). */
  readonly operations: readonly StoreOperation[];
  /** The stores and adapters its function is wired with (contract/ports.ts): composition builds exactly these, its bundle carries no other. */
  readonly ports: readonly PortName[];
  /** The settings its function reads from the environment (function-environment.ts). */
  readonly settings: readonly Env[];
  /** Whether it creates or deletes one-shot schedules (the end of a grace period, expiry notices). Default: neither. */
  readonly schedules?: 'create' | 'delete';
  /**
   * `write`: one of the key-issuing and key-removing writes that every usage
   * plan throttles per team more tightly (context managementRateLimit and
   * managementBurstLimit). Default: only the plan's own throttle.
   */
  readonly throttle?: 'write';
  /** A throttle of the method's own, across all callers (API Gateway's per-method stage throttle); for routes no usage plan meters. */
  readonly methodThrottle?: { readonly rateLimit: number; readonly burstLimit: number };
  /** A `public` route that authenticates nothing at all: why that is safe (the reason the stack gives cdk-nag). */
  readonly openBecause?: string;
  /** Largest body accepted, in bytes (413 beyond). Default `MAX_BODY_BYTES`. */
  readonly maxBodyBytes?: number;
}

/** A declared route with its path: what the stack, the local server and the tests serve. */
export type RouteDefinition = RouteDeclaration & { readonly path: string; readonly management: boolean };

/** The declaration with its path and kind filled in (its name kept as a literal type, every optional field still readable). */
export function defineRoute<const D extends RouteDeclaration>(declaration: D): RouteDefinition & D {
  return { ...declaration, path: `${ROUTE_PREFIX}${declaration.name}`, management: declaration.caller === 'manager' };
}

/** The verify endpoint: the public route that checks the value in its body (the hot path; a public query route, the signing keys, is not). */
export function isVerifyRoute(route: Pick<RouteDeclaration, 'caller' | 'input'>): boolean {
  return route.caller === 'public' && route.input === 'body';
}

/** The methods a path answers (OPTIONS where its route answers the preflight), in ROUTES order: the `Allow` of a 405. */
export function allowedMethods(routes: readonly { method: string; path: string; preflight?: boolean }[], path: string): string[] {
  const onPath = routes.filter((route) => route.path === path);
  return [...new Set([...onPath.map((route) => route.method), ...(onPath.some((route) => route.preflight) ? ['OPTIONS'] : [])])];
}

/** `rotate-widget-secret` → `RotateWidgetSecret`: a function's construct id. */
export function pascalCaseOf(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Largest request body accepted, in bytes (bigger bodies get 413). */
export const MAX_BODY_BYTES = 16 * 1024;
