/**
 * Invoked once a day by a schedule rule: applies every team's unused-key
 * policy (`disable_unused_after_days`; use-cases/unused-keys.ts,
 * docs/operations.md). Running it twice, or two at once, changes nothing
 * more (every write is conditional); a failed run is left to the next day's.
 * The local runtime runs the same job on its own timer.
 */
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { observed } from '../platform/observed';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import { applyUnusedKeyPolicies, type UnusedKeysSummary } from '../use-cases/unused-keys';

type Services = HandlerPorts<'disable-unused-keys'>;

/** The job as the daily rule runs it (the local runtime's timer calls it too). */
export const applyPolicies = applyUnusedKeyPolicies;

export const makeHandler = (services: () => Services) =>
  middy<ScheduledEvent, UnusedKeysSummary>({ timeoutEarlyInMillis: 0 })
    .use(observed<ScheduledEvent, UnusedKeysSummary>(() => services().observe, { route: () => 'disable-unused-keys' }))
    .handler(async (_event: ScheduledEvent, context: Context) => {
      const summary = await applyUnusedKeyPolicies(services(), context.awsRequestId);
      services().observe.logger.info('unused-key policies applied', { ...summary });
      return summary;
    });

export const handler = makeHandler(handlerServices('disable-unused-keys'));
