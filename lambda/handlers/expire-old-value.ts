/**
 * Invoked by the grace-period schedule (EventBridge Scheduler, asynchronously)
 * with `{key_id, generation}`: revokes the old value of a regenerated key.
 *
 * Failure policy: a malformed event is logged and dropped (retrying cannot
 * fix it). An unexpected error is thrown, so Lambda's asynchronous retries
 * and then the dead-letter queue keep the event. Expected no-ops are logged
 * and returned. `not_due` (the schedule fired before the transition's end,
 * e.g. a schedule replaced by a concurrent attempt a second earlier) is thrown
 * when the end is close enough for Lambda's retries (about 1 and 3 minutes
 * later) to find it due; otherwise it is dropped: authentication refuses the
 * old value by the clock anyway, and the previous lookup's TTL (end + 1 day)
 * removes it in the end.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { KEY_ID_PATTERN } from '../platform/ids';
import { settingWhenAbsent } from '../platform/environment';
import { REVOCATION_LATE_AFTER_SECONDS } from '../contract/metrics';
import { signals } from '../platform/observability';
import { observed } from '../platform/observed';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import { expireOldValue, type ExpireOldValueOutcome } from '../use-cases/expire-old-value';

type Services = HandlerPorts<'expire-old-value'>;

/** The schedule's input (lambda/adapters/scheduler-eventbridge.ts `expireEventOf`). */
export const expireEventSchema = z.strictObject({
  key_id: z.string().check(z.regex(KEY_ID_PATTERN)),
  // Generation 1 is the created value; only a regeneration (2+) opens a transition.
  generation: z.int().check(z.minimum(2)),
});

/** A `not_due` this close to the end is retried by Lambda instead of dropped. */
export const NOT_DUE_RETRY_WINDOW_MS = 3 * 60 * 1000;

export type ExpireHandlerResult = ExpireOldValueOutcome | { outcome: 'invalid_event' };

/** Thrown to have Lambda retry an early fire. */
export class ExpiryNotDueError extends Error {
  override name = 'ExpiryNotDueError';
}

async function expire(services: Services, event: unknown, context: Context): Promise<ExpireHandlerResult> {
  const requestId = context.awsRequestId;
  const log = services.observe.logger;
  const parsed = expireEventSchema.safeParse(event);
  if (!parsed.success) {
    log.error('expire event rejected', {
      problems: parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', code: issue.code })),
    });
    return { outcome: 'invalid_event' };
  }

  // A use-driven grace re-arms its schedule to invoke this very function: its own ARN comes from the invocation.
  if (context.invokedFunctionArn) settingWhenAbsent('EXPIRE_FUNCTION_ARN', context.invokedFunctionArn);
  const result = await expireOldValue(services, parsed.data, requestId);
  const fields = { key_id: parsed.data.key_id, generation: parsed.data.generation, ...result };
  if (result.outcome === 'not_due') {
    const remainingMs = Date.parse(result.transition_ends_at) - services.clock.now().getTime();
    if (remainingMs <= NOT_DUE_RETRY_WINDOW_MS) {
      log.warn('expiry fired before the transition end; retrying', { ...fields, remaining_ms: remainingMs });
      throw new ExpiryNotDueError(`Transition of generation ${parsed.data.generation} ends at ${result.transition_ends_at}`);
    }
    log.warn('expiry fired long before the transition end; dropped', { ...fields, remaining_ms: remainingMs });
    return result;
  }
  if (result.outcome === 'expired') signals.revocation(services.observe, result.late_by_seconds > REVOCATION_LATE_AFTER_SECONDS);
  const said = { expired: 'old value expired', rearmed: 'use-driven grace not over: checked again later' } as Record<string, string>;
  log.info(said[result.outcome] ?? 'expiry had nothing to do', fields);
  return result;
}

export const makeHandler = (services: () => Services) =>
  middy<unknown, ExpireHandlerResult>({ timeoutEarlyInMillis: 0 })
    .use(
      observed<unknown, ExpireHandlerResult>(() => services().observe, {
        route: () => 'expire-old-value',
        // Every invocation counts: a no-op or a failure is a revocation not done (0).
        settle: (o) => {
          if (!o.metrics.hasStoredMetrics()) o.metrics.addMetric('RevocationsDone', 'Count', 0);
        },
      }),
    )
    .handler((event, context) => expire(services(), event, context));

export const handler = makeHandler(handlerServices('expire-old-value'));
