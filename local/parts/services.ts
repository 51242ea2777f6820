import { applyPolicies as applyUnusedKeyPolicies } from '../../lambda/handlers/disable-unused-keys';
import path from 'node:path';
import { localDynamoClient } from '../dynamodb-local';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { makeHandler as makeExpireHandler } from '../../lambda/handlers/expire-old-value';
import { config } from '../../lambda/composition/config';
import { documentClientOf } from '../../lambda/composition/dynamo';
import { createServices } from '../../lambda/composition/services';
import { createLocalScheduler } from '../scheduler';
import { MS_PER_DAY, systemClock } from '../../lambda/platform/clock';
import { localWebhooks } from '../webhooks';
import { localCursorKey } from '../data-dir-keys';
import { localExpiryScheduler } from '../expiry';
import { localGithubKeys } from '../../lambda/composition/github-keys';
import { required, type LocalRuntimePart } from './part';
import type { LocalEnvironment } from '../settings';
import { SettingsError } from '../settings';
import { rollUp } from '../../lambda/handlers/roll-up-analytics';
import { folderExport } from '../../lambda/composition/analytics';
import { analyticsDir } from '../analytics-files';

/** GitHub's keys as `GITHUB_SECRET_SCANNING_KEYS` pins them (none when unset); a document that cannot be read stops the start. */
function githubKeysOf(env: LocalEnvironment): ReturnType<typeof localGithubKeys> {
  try {
    return localGithubKeys({ GITHUB_SECRET_SCANNING_KEYS: env.GITHUB_SECRET_SCANNING_KEYS });
  } catch (error) {
    throw new SettingsError(`GITHUB_SECRET_SCANNING_KEYS must be GitHub's keys document ({"public_keys":[…]}): ${(error as Error).message}`);
  }
}

/**
 * The services every handler runs with, built once: this runtime's own
 * DynamoDB Local (never an engine named by the environment), the system
 * clock, and the local revocation scheduler: in-process timers in place of
 * EventBridge Scheduler, invoking the expire function's handler as the
 * schedule would. On start it re-arms every key in transition and expires at
 * once those whose grace period ended while the service was stopped.
 */
export const servicesPart: LocalRuntimePart = {
  name: 'services and revocation scheduler',
  async start(context) {
    const { settings } = context;
    const client = localDynamoClient(required(context.dynamo, 'DynamoDB Local').endpoint);
    const db = documentClientOf(client);
    const expireHandler = makeExpireHandler(() => services);
    const webhooks = localWebhooks({ settings, clock: systemClock, services: () => services, logger: context.runtimeLog });
    const expiry = localExpiryScheduler({
      clock: systemClock,
      services: () => services,
      file: path.join(settings.dataDir, 'expiry-notices.json'),
      logger: context.runtimeLog,
    });
    const scheduler = createLocalScheduler({
      logger: context.runtimeLog,
      clock: systemClock,
      expire: (request) => expireHandler({ key_id: request.keyId, generation: request.generation }, { awsRequestId: `local-${randomUUID()}` } as Context),
    });
    const services = createServices({
      db,
      clock: systemClock,
      scheduler,
      expiry,
      settings: {
        keyTableName: settings.keyTableName,
        auditTableName: settings.auditTableName,
        planRateLimit: settings.planRateLimit,
        // The local platform stage's authorizer cache (regenerate warns when a use-driven grace is shorter).
        ...(settings.authorizerCacheTtl > 0 ? { authorizerCacheTtlSeconds: settings.authorizerCacheTtl } : {}),
        guessLimitPerMinute: config.guessLimitPerMinute,
        pepper: config.pepper,
        cursorSigningKey: localCursorKey(settings.dataDir),
      },
      observe: context.observe,
      webhookPorts: () => webhooks.ports,
      // GitHub's keys: the pinned document, or none (a laptop never fetches them).
      githubKeys: githubKeysOf(process.env),
      // The analytics' hours as Parquet under the data directory, as the stack's bucket holds them (docs/analytics.md).
      analyticsExport: folderExport(analyticsDir(settings.dataDir)),
    });
    context.services = services;
    const summary = await scheduler.rearmFromStore({ db, keyTableName: settings.keyTableName });
    if (summary.armed + summary.firedAtOnce > 0) {
      console.info(`Revocation scheduler: ${summary.armed} transition(s) armed, ${summary.firedAtOnce} expired at once`);
    }
    // The verification analytics' rollup, as the deployed rollup function runs it on its schedule (docs/analytics.md).
    const rollup = setInterval(() => {
      rollUp(services).catch((error: unknown) => context.runtimeLog.warn('analytics rollup failed', { error: String(error) }));
    }, settings.analyticsRollupSeconds * 1000);
    rollup.unref();
    // The teams' unused-key policies, once a day from the start, as the deployed job's daily rule runs them (docs/operations.md).
    const unusedKeys = setInterval(() => {
      applyUnusedKeyPolicies(services, `local-${randomUUID()}`).catch((error: unknown) =>
        context.runtimeLog.warn('unused-key policies failed', { error: String(error) }),
      );
    }, MS_PER_DAY);
    unusedKeys.unref();
    return async () => {
      clearInterval(rollup);
      clearInterval(unusedKeys);
      // Verification counts not written yet.
      await services.counts.flush().catch((error: unknown) => context.runtimeLog.warn('verification counts not written', { error: String(error) }));
      // Uses admitted from hot keys' leases and not written yet (the HTTP server has stopped before this part).
      await services.usage.flushPending().catch((error: unknown) => context.runtimeLog.warn('pending uses not written', { error: String(error) }));
      // What metered leases hold and did not use goes back to the limits and the balance.
      await services.meters?.releaseAll().catch((error: unknown) => context.runtimeLog.warn('leased capacity not given back', { error: String(error) }));
      await scheduler.stop();
      await webhooks.queue.stop();
      await expiry.queue.stop();
      client.destroy();
    };
  },
};
