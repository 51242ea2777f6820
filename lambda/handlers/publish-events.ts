/**
 * Audit-table stream → the service's EventBridge bus: every new audit
 * record about a key is put on the bus as a lifecycle event (source
 * `api-key-service`, detail-type `API key lifecycle event`, the event as
 * detail), where the webhook queue's rule and any rule of the platform
 * team's own pick it up. The local runtime passes its own publisher.
 */
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { eventBridgePublisher } from '../adapters/event-bus-eventbridge';
import { publishStreamBatch, type EventPublisher } from '../use-cases/event-publishing';
import { environmentObservability, type Observability } from '../platform/observability';
import { observed } from '../platform/observed';
import { environmentTracer } from '../platform/tracing';
import { requiredSetting } from '../platform/environment';

type StreamHandler = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

export function makeHandler(publish: EventPublisher, observe: Observability = environmentObservability()): StreamHandler {
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>({ timeoutEarlyInMillis: 0 })
    .use(observed<DynamoDBStreamEvent, DynamoDBBatchResponse>(() => observe, { route: () => 'publish-events' }))
    .handler((event) => publishStreamBatch(event, publish, observe)) as unknown as StreamHandler;
}

let fromEnvironment: StreamHandler | undefined;
export const handler: StreamHandler = (event, context) =>
  (fromEnvironment ??= makeHandler(eventBridgePublisher(requiredSetting('EVENT_BUS_NAME')), environmentObservability(environmentTracer())))(event, context);
