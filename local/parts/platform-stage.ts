import { systemClock } from '../../lambda/platform/clock';
import { startAuditStreamArchiver } from '../audit-stream';
import { authorizerWith } from '../../lambda/handlers/authorizer';
import { makeHandler as makePublishHandler } from '../../lambda/handlers/publish-events';
import { flushOwnCacheAfter } from '../../lambda/handlers/flush-authorizer-cache';
import { createPlatformStage } from '../platform-stage';
import { required, type LocalRuntimePart } from './part';

/**
 * A platform API behind the platform authorizer, with API Gateway's result
 * cache (`/platform/<path>`, local/platform-stage.ts), and what flushes it:
 * the lifecycle events that stop a key, read from the audit stream as the
 * stack's rule reads them from the bus. Clearing a map costs nothing, so
 * every such event clears it (AWS coalesces its API calls to one a second).
 */
export const platformStagePart: LocalRuntimePart = {
  name: 'platform stage',
  async start(context) {
    const services = required(context.services, 'services');
    const { settings } = context;
    const stage = createPlatformStage({
      authorizer: authorizerWith(
        () => settings.routeScopes,
        () => services,
      ) as unknown as Parameters<typeof createPlatformStage>[0]['authorizer'],
      ttlSeconds: settings.authorizerCacheTtl,
      clock: systemClock,
    });
    const flushing = makePublishHandler(async (events) => {
      await flushOwnCacheAfter(() => stage.flush(), events);
    }, context.observe);
    // Read the stream only once the stage is used (most runs never call it), and answer only once the records
    // already there are read: every record after that is a change that a kept answer may predate.
    let reader: Promise<{ stop(): Promise<void> }> | undefined;
    const startReader = () =>
      (reader ??= startAuditStreamArchiver({
        dynamoEndpoint: required(context.dynamo, 'DynamoDB Local').endpoint,
        auditTableName: settings.auditTableName,
        handler: flushing,
        logger: context.runtimeLog,
        // A kept answer outlives a revocation by at most this (plus the read).
        pollMs: 200,
      }).then(async (started) => {
        await started.drain();
        return started;
      }));
    context.platformStage = {
      answer: async (request) => {
        await startReader();
        return stage.answer(request);
      },
      flush: () => stage.flush(),
      get size() {
        return stage.size;
      },
    };
    return async () => {
      await (await reader)?.stop();
    };
  },
};
