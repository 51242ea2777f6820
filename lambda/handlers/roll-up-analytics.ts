/**
 * Invoked every 5 minutes by a schedule rule: rolls up the verification
 * analytics' marked hours into their hour and day rollups, and exports
 * each as Parquet to the analytics bucket (use-cases/analytics-rollup.ts;
 * docs/analytics.md). Running it
 * twice, or two at once, writes the same items; a failed run is left to the
 * next one (the marks stay). The local runtime runs the same rollup on its
 * own timer (`ANALYTICS_ROLLUP_SECONDS`).
 */
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { observed } from '../platform/observed';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import { ANALYTICS_EXPORT_ADAPTERS } from '../composition/analytics-export-s3';
import { rollUpAnalytics } from '../use-cases/analytics-rollup';

type Services = HandlerPorts<'roll-up-analytics'>;
type Outcome = { hours: number; again: number };

/** The rollup as the schedule runs it (the local runtime's timer and `npm run analytics -- --refresh` call it too). */
export const rollUp = rollUpAnalytics;

export const makeHandler = (services: () => Services) =>
  middy<ScheduledEvent, Outcome>({ timeoutEarlyInMillis: 0 })
    .use(observed<ScheduledEvent, Outcome>(() => services().observe, { route: () => 'roll-up-analytics' }))
    .handler(async () => {
      const outcome = await rollUpAnalytics(services());
      services().observe.logger.info('analytics rolled up', outcome);
      return outcome;
    });

export const handler = makeHandler(handlerServices('roll-up-analytics', ANALYTICS_EXPORT_ADAPTERS));
