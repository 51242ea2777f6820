import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Clock } from '../platform/clock';
import type { Observability } from '../platform/observability';
import type { KeyStore } from '../store/key-store';
import type { VerifyServices } from '../verification/verify';
import { jsonResponse } from '../contract/response';
import type { RouteDeclaration } from '../contract/routes';
import type { ManagementEvent } from './event';
import { authenticateAndMeter, errorResponses, jsonBody, liveReachOnly, type BodyOptions } from './middleware';
import { queryInput } from './query-input';
import { apiRoute, observedApi } from '../platform/observed';
import { signals } from '../platform/observability';
import { namedKeyId, withPrefetched, type PrefetchedItems } from '../store/prefetch';

/**
 * What every management route's middleware reads: verification's stores
 * (authentication and metering), the key store (the target's prefetch),
 * observability and readiness. A route's own step asks for more (`S`).
 */
export type ManagementPorts = VerifyServices & {
  readonly keys: KeyStore;
  readonly observe: Observability;
  ready(): Promise<void>;
};

/** A management endpoint's own step: the typed event and the services in, the response out. */
export type ManagementStep<TSchema extends z.ZodMiniType, S extends ManagementPorts = ManagementPorts> = (
  event: ManagementEvent<z.output<TSchema>>,
  services: S,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/**
 * Wraps a management endpoint's step with the house middleware stack:
 * logs, metrics and traces (`ManagementCalls` by route and status class) →
 * errors → authentication and metering (`keys.manage`) → strict body or query.
 * `route` is the handler's own declaration (where its input is); `services`
 * is called per request and returns the process's services (built once):
 * handlers are made at import without reading the environment.
 */
export function managementHandler<TSchema extends z.ZodMiniType, S extends ManagementPorts = ManagementPorts>(
  route: Pick<RouteDeclaration, 'name' | 'input' | 'reach' | 'repeatable'>,
  services: () => S,
  schemaFor: (services: S) => TSchema,
  step: ManagementStep<TSchema, S>,
  options: BodyOptions = {},
) {
  const schema = () => schemaFor(services());
  const handler = middy<ManagementEvent<unknown>, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    .use(
      observedApi<ManagementEvent<unknown>, APIGatewayProxyResult>(services, {
        route: apiRoute,
        answerLine: 'INFO',
        settle: (o, request) => signals.managementCall(o, apiRoute(request.event) ?? 'unknown', request.response?.statusCode ?? 500),
      }),
    )
    .use(errorResponses(() => services().observe))
    .use(
      authenticateAndMeter(services, {
        targetKeyId: (event) => namedKeyId({ body: event.body, query: event.queryStringParameters }, route.input),
      }),
    );
  if (route.reach === 'live') handler.use(liveReachOnly(route.name));
  return handler.use(route.input === 'query' ? queryInput(schema, route.repeatable) : jsonBody(schema, options)).handler((event, context) => {
    const typed = event as ManagementEvent<z.output<TSchema>> & { prefetched?: PrefetchedItems };
    return step(typed, withPrefetched(services(), typed.prefetched, typed.caller.id), context);
  });
}

/** The envelope of a route's answer: `{data, meta: {timestamp, request_id, …}}` (also what an idempotent answer stores). */
export function dataBody(
  data: unknown,
  event: Pick<ManagementEvent<unknown>, 'meta'>,
  services: { readonly clock: Clock },
  meta: Record<string, unknown> = {},
): { data: unknown; meta: Record<string, unknown> } {
  return { data, meta: { timestamp: services.clock.now().toISOString(), request_id: event.meta.requestId, ...meta } };
}

/**
 * The answer of a read or edit route: `{data, meta: {timestamp, request_id, …}}`
 * (the create response's envelope), `meta` extended with e.g. `next_cursor`.
 */
export function dataResponse(
  status: number,
  data: unknown,
  event: Pick<ManagementEvent<unknown>, 'meta'>,
  services: { readonly clock: Clock },
  meta: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return jsonResponse(status, dataBody(data, event, services, meta), event.meta.requestId, headers);
}

/**
 * A read route: the strict query, one service call, its answer in the data
 * envelope (a page's `next_cursor` in `meta`).
 */
export function readRoute<TSchema extends z.ZodMiniType, S extends ManagementPorts = ManagementPorts>(
  route: Pick<RouteDeclaration, 'name' | 'input' | 'reach' | 'repeatable'>,
  services: () => S,
  schema: TSchema,
  read: (services: S, caller: ManagementEvent<unknown>['caller'], input: z.output<TSchema>) => Promise<unknown>,
  options: { paged?: boolean } = {},
) {
  return managementHandler<TSchema, S>(
    route,
    services,
    () => schema,
    async (event, deps) => {
      const result = await read(deps, event.caller, event.input);
      if (!options.paged) return dataResponse(200, result, event, deps);
      const page = result as { data: unknown; next_cursor: string | null };
      return dataResponse(200, page.data, event, deps, { next_cursor: page.next_cursor });
    },
  );
}
