/**
 * Webhooks on one machine: the same delivery code as the AWS delivery
 * function, with local ports. The "bus" is a second reader of DynamoDB
 * Local's audit stream (its own checkpoint), handing each lifecycle event to
 * the delivery at once; retries wait in an in-process queue on the clock,
 * kept in a file so a restart resumes them; secrets are sealed with a key
 * kept under DATA_DIR (created on first start, mode 0600).
 */
import path from 'node:path';
import { dataDirKey } from './data-dir-keys';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clock } from '../lambda/platform/clock';
import type { WebhookServices as Services } from '../lambda/composition/services';
import type { WebhookPorts } from '../lambda/domain/webhook-ports';
import { localSecretBox } from '../lambda/platform/secret-box';
import { systemResolver, type AddressPolicy, type Resolver } from '../lambda/platform/address-policy';
import { httpPoster } from '../lambda/adapters/webhook-transport';
import { runJob } from '../lambda/handlers/deliver-webhooks';
import { createLocalJobQueue, type LocalJobQueue } from './job-queue';
import type { DeliveryJob } from '../lambda/domain/webhook-endpoints';
import type { LocalSettings } from './settings';

/** The key that seals webhook secrets in a data directory. */
export const localSecretKey = (dataDir: string): Buffer => dataDirKey(dataDir, 'webhook-secret.key');

export interface LocalWebhooks {
  readonly ports: WebhookPorts;
  readonly queue: LocalJobQueue<DeliveryJob>;
}

let redeliveries = 0;
/** A delivery job's name: one per attempt of an event to an endpoint; each redelivery asked for is a job of its own. */
export const deliveryJobName = (job: DeliveryJob) => `${job.event_id}#${job.endpoint_id}#${job.attempt}${job.manual ? `#manual${++redeliveries}` : ''}`;

/** The webhook queue of the local runtime (and the tests): delivery jobs on the local job queue. */
export function localDeliveryQueue(options: {
  clock: Clock;
  services: () => Services;
  file?: string;
  logger?: Pick<Logger, 'warn'>;
}): LocalJobQueue<DeliveryJob> {
  return createLocalJobQueue({
    clock: options.clock,
    nameOf: deliveryJobName,
    // One attempt per endpoint at a time, oldest first: a hanging receiver holds its own endpoint only, and a
    // receiver gets its events in order here (in AWS, at most ENDPOINT_CONCURRENCY at once, in no set order).
    perGroup: { groupOf: (job) => job.endpoint_id, limit: 1 },
    run: (job) => runJob(options.services(), job),
    file: options.file,
    logger: options.logger,
  });
}

/** The local ports: loopback allowed unless `WEBHOOK_ALLOW_LOOPBACK=false`, http allowed, private and link-local refused. */
export function localWebhooks(options: {
  settings: Pick<LocalSettings, 'dataDir' | 'webhookAllowLoopback'>;
  clock: Clock;
  services: () => Services;
  logger?: Pick<Logger, 'warn'>;
  resolver?: Resolver;
  queueFile?: string | null;
}): LocalWebhooks {
  const policy: AddressPolicy = { httpsOnly: false, allowLoopback: options.settings.webhookAllowLoopback };
  const queue = localDeliveryQueue({
    clock: options.clock,
    services: options.services,
    file: options.queueFile === null ? undefined : (options.queueFile ?? path.join(options.settings.dataDir, 'webhook-queue.json')),
    logger: options.logger,
  });
  return {
    queue,
    ports: {
      policy,
      queue,
      resolve: options.resolver ?? systemResolver,
      secrets: localSecretBox(localSecretKey(options.settings.dataDir)),
      post: httpPoster({ policy, resolver: options.resolver }),
    },
  };
}
