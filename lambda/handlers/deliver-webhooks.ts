/**
 * The webhook delivery function: reads the delivery queue. A message from
 * the bus's rule (an EventBridge event, `detail` the lifecycle event) is
 * fanned out to the team's endpoints, first attempts at once; a message
 * `{"webhook_job": …}` (a retry, or a test or redelivery a route queued) is
 * one attempt. A message that fails is reported (ReportBatchItemFailures),
 * retried by SQS, and after its receives goes to the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { HandlerPorts } from '../store/ports';
import { handlerServices } from '../composition/handler-services';
import type { LifecycleEvent } from '../domain/lifecycle-events';
import type { DeliveryJob } from '../domain/webhook-endpoints';
import { acceptEvent, attemptDelivery } from '../use-cases/webhook-delivery';

/** What a queue message asks for. */
export function messageOf(body: string): { event: LifecycleEvent } | { job: DeliveryJob } {
  const parsed = JSON.parse(body) as { 'detail-type'?: string; detail?: LifecycleEvent; webhook_job?: DeliveryJob };
  if (parsed.webhook_job) return { job: parsed.webhook_job };
  if (parsed['detail-type'] && parsed.detail) return { event: parsed.detail };
  throw new Error('not a webhook message');
}

/** What the local runtime runs in place of the queue's messages: an event from its bus, a job from its queue. */
type Services = HandlerPorts<'deliver-webhooks'>;

export const deliverEvent = (services: Services, event: LifecycleEvent) => acceptEvent(services, event);
export const runJob = (services: Services, job: DeliveryJob) => attemptDelivery(services, job);

export const makeHandler =
  (services: () => Services) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const deps = services();
    await deps.ready();
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    await Promise.all(
      event.Records.map(async (record: SQSRecord) => {
        try {
          const message = messageOf(record.body);
          if ('job' in message) await attemptDelivery(deps, message.job);
          else await acceptEvent(deps, message.event);
        } catch (error) {
          deps.observe.logger.error('webhook message failed; SQS retries it', { message_id: record.messageId, error: String(error) });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };

export const handler = makeHandler(handlerServices('deliver-webhooks'));
