/**
 * Lifecycle events from the audit table's stream: each new audit record
 * about a key becomes one event (domain/lifecycle-events.ts), published in
 * stream order. Read from the stream, never from the request path, so a key
 * route sends no more requests for having events. In AWS the publisher puts
 * events on the service's EventBridge bus; locally it hands them to the
 * in-process delivery.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { LifecycleEvent } from '../domain/lifecycle-events';
import { lifecycleEventOf } from '../domain/lifecycle-events';
import type { Observability } from '../platform/observability';
import { planRecord } from './audit-archive';

import type { EventPublisher } from '../domain/lifecycle-events';

export type { EventPublisher };

/** The events of a batch's new audit records, in stream order (records that are not events are the archive's to report). */
export function lifecycleEventsOf(batch: DynamoDBStreamEvent): Array<{ sequenceNumber: string; event: LifecycleEvent }> {
  const events: Array<{ sequenceNumber: string; event: LifecycleEvent }> = [];
  for (const record of batch.Records) {
    const plan = planRecord(record);
    if (plan.kind !== 'archive') continue;
    const event = lifecycleEventOf(plan.event);
    if (event) events.push({ sequenceNumber: plan.sequenceNumber, event });
  }
  return events;
}

/**
 * Publishes a batch's events; on a failure, reports the first unpublished
 * record so the stream resumes there (ReportBatchItemFailures): an event is
 * published at least once, and a receiver deduplicates by `webhook-id`.
 */
export async function publishStreamBatch(batch: DynamoDBStreamEvent, publish: EventPublisher, observe: Observability): Promise<DynamoDBBatchResponse> {
  const events = lifecycleEventsOf(batch);
  for (let index = 0; index < events.length; index++) {
    const entry = events[index] as (typeof events)[number];
    try {
      await publish([entry.event]);
    } catch (error) {
      observe.logger.warn('lifecycle event not published; the stream resumes at it', { event_id: entry.event.id, error: String(error) });
      return { batchItemFailures: [{ itemIdentifier: entry.sequenceNumber }] };
    }
  }
  return { batchItemFailures: [] };
}
