/**
 * Invoked every 5 minutes by a schedule rule: rolls up the verification
 * analytics' marked hours into their hour and day rollups
 * (store/verification-analytics.ts `rollUp`; docs/analytics.md). Running it
 * twice, or two at once, writes the same items; a failed run is left to the
 * next one (the marks stay). The local runtime runs the same rollup on its
 * own timer (`ANALYTICS_ROLLUP_SECONDS`).
 */
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { observed } from '../platform/observed';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';

type Services = HandlerPorts<'roll-up-analytics'>;
type Outcome = { hours: number; again: number };

export const makeHandler = (services: () => Services) =>
  middy<ScheduledEvent, Outcome>({ timeoutEarlyInMillis: 0 })
    .use(observed<ScheduledEvent, Outcome>(() => services().observe, { route: () => 'roll-up-analytics' }))
    .handler(async () => {
      const outcome = await services().analytics.rollUp(services().clock.now().getTime());
      services().observe.logger.info('analytics rolled up', outcome);
      return outcome;
    });

export const handler = makeHandler(handlerServices('roll-up-analytics'));
