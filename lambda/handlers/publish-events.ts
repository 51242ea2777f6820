/**
 * Audit-table stream → the service's EventBridge bus: every new audit
 * record about a key is put on the bus as a lifecycle event (source
 * `api-key-service`, detail-type `API key lifecycle event`, the event as
 * detail), where the webhook queue's rule and any rule of the platform
 * team's own pick it up. The local runtime passes its own publisher.
 */
import middy from '@middy/core';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { EVENT_DETAIL_TYPE, EVENT_SOURCE } from '../contract/webhooks';
import { publishStreamBatch, type EventPublisher } from '../use-cases/event-publishing';
import { environmentObservability, type Observability } from '../platform/observability';
import { observed } from '../platform/observed';
import { environmentTracer } from '../platform/tracing';
import { requiredSetting } from '../platform/environment';

type StreamHandler = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

/** The PutEvents entry of one event. */
export function busEntryOf(busName: string, event: Parameters<EventPublisher>[0][number]) {
  return { EventBusName: busName, Source: EVENT_SOURCE, DetailType: EVENT_DETAIL_TYPE, Detail: JSON.stringify(event), Time: new Date(event.timestamp) };
}

/** Puts events on the bus; a partly failed put throws (the stream resumes at the first). */
export function eventBridgePublisher(busName: string, client = new EventBridgeClient({})): EventPublisher {
  return async (events) => {
    const { FailedEntryCount } = await client.send(new PutEventsCommand({ Entries: events.map((event) => busEntryOf(busName, event)) }));
    if (FailedEntryCount) throw new Error(`${FailedEntryCount} event(s) not put on the bus`);
  };
}

export function makeHandler(publish: EventPublisher, observe: Observability = environmentObservability()): StreamHandler {
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>({ timeoutEarlyInMillis: 0 })
    .use(observed<DynamoDBStreamEvent, DynamoDBBatchResponse>(() => observe, { route: () => 'publish-events' }))
    .handler((event) => publishStreamBatch(event, publish, observe)) as unknown as StreamHandler;
}

let fromEnvironment: StreamHandler | undefined;
export const handler: StreamHandler = (event, context) =>
  (fromEnvironment ??= makeHandler(eventBridgePublisher(requiredSetting('EVENT_BUS_NAME')), environmentObservability(environmentTracer())))(event, context);
