/**
 * The first middleware of every handler: Powertools' own middy middlewares
 * (Logger `injectLambdaContext`, Tracer `captureLambdaHandler`, Metrics
 * `logMetrics` with the cold-start metric), over the process's
 * `Observability`, which is read on the first invocation (handlers are made
 * at import, before their services exist). Adds the correlation id (the API
 * request id) to every log line and the route as a trace annotation, and
 * lets the handler record its own metrics from the final answer before they
 * are flushed.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import type { Observability } from './observability';

export interface ObservedOptions<TEvent, TResult> {
  /** Awaited before anything else (the services' `ready`: e.g. the pepper secret at cold start). */
  readonly ready?: () => Promise<void>;
  /** The correlation id of a request, e.g. API Gateway's `requestContext.requestId`. */
  readonly correlationId?: (event: TEvent) => string | undefined;
  /** The route annotation of the trace, the route's name. */
  readonly route?: (event: TEvent) => string | undefined;
  /**
   * One line per answered API request (`request answered`: route, status,
   * duration), at this level: INFO for the management routes, DEBUG on the
   * hot path (kept for the sampled share of invocations). Default: none.
   */
  readonly answerLine?: 'INFO' | 'DEBUG';
  /** Records the invocation's metrics from its final answer (or error), before the flush. */
  readonly settle?: (observability: Observability, request: Request<TEvent, TResult>) => void;
}

/** API Gateway's request id: every log line's `correlation_id`, and the `request_id` of the answer. */
export function apiRequestId(event: unknown): string | undefined {
  const id = (event as { requestContext?: { requestId?: unknown } } | null)?.requestContext?.requestId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The last segment of an API event's resource (`/functions/v1/<route>` → `<route>`). */
export function apiRoute(event: unknown): string | undefined {
  const resource = (event as { resource?: unknown } | null)?.resource;
  if (typeof resource !== 'string' || resource === '') return undefined;
  return resource.split('/').filter(Boolean).pop();
}

export function observed<TEvent, TResult>(observability: () => Observability, options: ObservedOptions<TEvent, TResult> = {}): MiddlewareObj<TEvent, TResult> {
  type Part = MiddlewareObj<TEvent, TResult>;
  let parts: { observability: Observability; inOrder: Part[] } | undefined;
  const built = () => {
    if (parts) return parts;
    const o = observability();
    const inOrder: Part[] = [injectLambdaContext(o.logger, { resetKeys: true }) as Part];
    if (o.tracer) inOrder.push(captureLambdaHandler(o.tracer, { captureResponse: false }) as Part);
    inOrder.push(logMetrics(o.metrics, { captureColdStartMetric: true }) as Part);
    parts = { observability: o, inOrder };
    return parts;
  };
  const startedAt = new WeakMap<object, number>();
  const settle = (request: Request<TEvent, TResult>) => {
    const { observability: o } = built();
    try {
      options.settle?.(o, request);
      if (options.answerLine) {
        const status = (request.response as { statusCode?: unknown } | undefined)?.statusCode;
        const fields = {
          route: options.route?.(request.event),
          status: typeof status === 'number' ? status : 500,
          duration_ms: Date.now() - (startedAt.get(request) ?? Date.now()),
        };
        if (options.answerLine === 'INFO') o.logger.info('request answered', fields);
        else o.logger.debug('request answered', fields);
      }
    } catch (error) {
      // A metric or a line that cannot be recorded never changes the answer.
      o.logger.warn('could not record the invocation metrics', { error: error instanceof Error ? error : String(error) });
    }
  };
  return {
    before: async (request) => {
      startedAt.set(request, Date.now());
      await options.ready?.();
      const { observability: o, inOrder } = built();
      for (const part of inOrder) await part.before?.(request);
      const correlationId = options.correlationId?.(request.event);
      if (correlationId) o.logger.setCorrelationId(correlationId);
      const route = options.route?.(request.event);
      if (route && o.tracer?.isTracingEnabled()) o.tracer.putAnnotation('route', route);
    },
    after: async (request) => {
      settle(request);
      for (const part of [...built().inOrder].reverse()) await part.after?.(request);
    },
    onError: async (request) => {
      settle(request);
      for (const part of [...built().inOrder].reverse()) await part.onError?.(request);
    },
  };
}

/**
 * `observed` for an API Gateway handler over the process's services: their
 * observability, `ready` awaited first, the API request id as correlation id.
 */
export function observedApi<TEvent, TResult>(
  services: () => { readonly observe: Observability; ready(): Promise<void> },
  options: Omit<ObservedOptions<TEvent, TResult>, 'ready' | 'correlationId'>,
): MiddlewareObj<TEvent, TResult> {
  return observed<TEvent, TResult>(() => services().observe, { ...options, ready: () => services().ready(), correlationId: apiRequestId });
}
