/**
 * Invoked by a rule on the service's bus for the lifecycle events that stop
 * a key or a value (lambda/contract/authorizer-cache.ts): flushes the
 * authorizer cache of every configured platform stage
 * (`AUTHORIZER_CACHE_STAGES`), at most once a second per stage
 * (lambda/use-cases/authorizer-cache.ts). A failed flush is thrown, so
 * Lambda's retries (then the rule's dead-letter queue) keep the event.
 * The local runtime calls `flushForEvents` with its own stage's flusher.
 */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { STAGE_PATTERN } from '../contract/authorizer-cache';
import type { LifecycleEvent } from '../domain/lifecycle-events';
import { observed } from '../platform/observed';
import { systemClock } from '../platform/clock';
import { optionalSetting } from '../platform/environment';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import { flushAfter, type FlushOutcome } from '../use-cases/authorizer-cache';

type Services = HandlerPorts<'flush-authorizer-cache'>;

/** The configured stages (`["<restApiId>:<stage>"]`); a malformed entry fails the cold start. */
export function stagesFromEnvironment(env?: Readonly<Record<string, string | undefined>>): string[] {
  const raw = optionalSetting('AUTHORIZER_CACHE_STAGES', env);
  if (raw === undefined) return [];
  const stages: unknown = JSON.parse(raw);
  if (!Array.isArray(stages) || !stages.every((stage) => typeof stage === 'string' && STAGE_PATTERN.test(stage))) {
    throw new Error('AUTHORIZER_CACHE_STAGES must be a JSON list of "<restApiId>:<stage>"');
  }
  return stages as string[];
}

/** Flushes `stages` after `events` (the local runtime's entry, and the Lambda's). */
export function flushForEvents(
  services: Pick<Services, 'flushClaims' | 'cacheFlusher' | 'clock'>,
  stages: readonly string[],
  events: readonly LifecycleEvent[],
): Promise<FlushOutcome> {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  return flushAfter({ claims: services.flushClaims, flush: services.cacheFlusher, clock: services.clock, sleep }, stages, events);
}

/**
 * A cache whose flush costs nothing (the local runtime's own stage): flushed
 * after every event that calls for it, no claim, no wait.
 */
export function flushOwnCacheAfter(flush: () => void, events: readonly LifecycleEvent[]): Promise<FlushOutcome> {
  const always = { claimFlush: async () => ({ claimed: true as const }) };
  return flushAfter({ claims: always, flush: async () => flush(), clock: systemClock, sleep: async () => undefined }, ['local'], events);
}

type BusEvent = EventBridgeEvent<string, LifecycleEvent>;

export const makeHandler = (services: () => Services, stages: () => readonly string[]) =>
  middy<BusEvent, FlushOutcome>({ timeoutEarlyInMillis: 0 })
    .use(observed<BusEvent, FlushOutcome>(() => services().observe, { route: () => 'flush-authorizer-cache' }))
    .handler(async (event) => {
      const outcome = await flushForEvents(services(), stages(), [event.detail]);
      services().observe.logger.info('authorizer caches', { event_id: event.detail.id, event_type: event.detail.type, stages: outcome });
      return outcome;
    });

let configured: string[] | undefined;
export const handler = makeHandler(handlerServices('flush-authorizer-cache'), () => (configured ??= stagesFromEnvironment()));
