/**
 * Expiry notices on one machine: the port EventBridge Scheduler fills in
 * AWS, on the local job queue (kept in `<DATA_DIR>/expiry-notices.json`, so
 * a restart loses none), each running the notify function's handler as the
 * schedule would invoke it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { Clock } from '../lambda/platform/clock';
import type { Services } from '../lambda/composition/services';
import {
  expiryScheduleName,
  makeHandler as makeNotifyHandler,
  noticeTime,
  type ExpiryRequest,
  type ExpiryScheduler,
} from '../lambda/handlers/notify-key-expiry';
import { createLocalJobQueue, type LocalJobQueue } from './job-queue';

export interface LocalExpiry extends ExpiryScheduler {
  readonly queue: LocalJobQueue<ExpiryRequest>;
}

export function localExpiryScheduler(options: { clock: Clock; services: () => Services; file?: string; logger?: Pick<Logger, 'warn'> }): LocalExpiry {
  const notify = makeNotifyHandler(options.services);
  const queue = createLocalJobQueue<ExpiryRequest>({
    clock: options.clock,
    nameOf: expiryScheduleName,
    run: (request) => notify(request, { awsRequestId: `local-${randomUUID()}` } as Context),
    file: options.file,
    logger: options.logger,
  });
  return {
    queue,
    async arm(requests) {
      const now = options.clock.now().getTime();
      for (const request of requests) await queue.later(request, Math.max(0, noticeTime(request.expires_at, request.notice) - now) / 1000);
    },
    async disarm(keyId, expiresAt) {
      const suffix = `-${Math.floor(Date.parse(expiresAt) / 1000)}`;
      await queue.cancel((name) => name.startsWith(`keyexp-${keyId}-`) && name.endsWith(suffix));
    },
  };
}
