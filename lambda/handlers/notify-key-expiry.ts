/**
 * Invoked by an expiry-notice schedule (EventBridge Scheduler,
 * asynchronously) with `{key_id, expires_at, notice}`: writes `key.expiring`
 * or `key.expired` once (lambda/use-cases/key-expiry.ts).
 *
 * Failure policy, as the expire function's: a malformed event is logged and
 * dropped; an unexpected error is thrown, so Lambda's retries and then the
 * schedule's dead-letter queue keep it; a fire that comes early is thrown to
 * be retried (Lambda retries about 1 and 3 minutes later).
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { KEY_ID_PATTERN } from '../platform/ids';
import { observed } from '../platform/observed';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import { notifyExpiry, type ExpiryNoticeOutcome } from '../use-cases/key-expiry';

type Services = HandlerPorts<'notify-key-expiry'>;

/** The schedule's input (lambda/adapters/expiry-scheduler-eventbridge.ts). */
export const expiryEventSchema = z.strictObject({
  key_id: z.string().check(z.regex(KEY_ID_PATTERN)),
  expires_at: z.iso.datetime({ offset: true }),
  notice: z.enum(['7d', '1d', 'expired']),
});

export type ExpiryHandlerResult = ExpiryNoticeOutcome | { outcome: 'invalid_event' };

/** Thrown to have Lambda retry an early fire. */
export class NoticeNotDueError extends Error {
  override name = 'NoticeNotDueError';
}

async function notify(services: Services, event: unknown, context: Context): Promise<ExpiryHandlerResult> {
  const log = services.observe.logger;
  const parsed = expiryEventSchema.safeParse(event);
  if (!parsed.success) {
    log.error('expiry notice event rejected', { problems: parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', code: issue.code })) });
    return { outcome: 'invalid_event' };
  }
  const result = await notifyExpiry(services, parsed.data, context.awsRequestId);
  log.info('expiry notice', { key_id: parsed.data.key_id, notice: parsed.data.notice, ...result });
  if (result.outcome === 'not_due') throw new NoticeNotDueError(`The ${parsed.data.notice} notice of key ${parsed.data.key_id} is due at ${result.due_at}`);
  return result;
}

export const makeHandler = (services: () => Services) =>
  middy<unknown, ExpiryHandlerResult>({ timeoutEarlyInMillis: 0 })
    .use(observed<unknown, ExpiryHandlerResult>(() => services().observe, { route: () => 'notify-key-expiry' }))
    .handler((event, context) => notify(services(), event, context));

export const handler = makeHandler(handlerServices('notify-key-expiry'));

/** What the local runtime's stand-in for the schedules needs (local/expiry.ts). */
export { expiryScheduleName, noticeTime, type ExpiryRequest, type ExpiryScheduler } from '../domain/expiry-notices';
