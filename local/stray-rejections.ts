/**
 * One request's failure never ends the runtime. Node ends a process on a
 * rejection nobody handles (`--unhandled-rejections=throw`, the default):
 * behind the local server that would drop every request in flight for one
 * request's bug. The runtime logs such a rejection instead, with what it
 * was, and keeps serving; `npm run lint`'s typed rules keep new ones out of
 * the code.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { errorField } from '../lambda/platform/observability';

/** Logs each unhandled rejection on `logger` instead of exiting; returns the function that removes the guard. */
export function keepRunningOnStrayRejections(logger: Pick<Logger, 'error'>): () => void {
  const onRejection = (reason: unknown) => {
    logger.error('an unhandled promise rejection was logged, not fatal: the runtime keeps serving', errorField(reason));
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}
