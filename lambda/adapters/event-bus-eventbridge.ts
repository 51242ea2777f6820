/**
 * Lifecycle events put on the service's EventBridge bus (source
 * `api-key-service`, detail-type `API key lifecycle event`, the event as
 * detail), where the webhook queue's rule and any rule of the platform
 * team's own pick them up: the audit stream's events (handlers/publish-events.ts)
 * and the audit checkpoints (use-cases/audit-checkpoints.ts).
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EVENT_DETAIL_TYPE, EVENT_SOURCE } from '../contract/webhooks';
import type { EventPublisher, LifecycleEvent } from '../domain/lifecycle-events';

/** The PutEvents entry of one event. */
export function busEntryOf(busName: string, event: LifecycleEvent) {
  return { EventBusName: busName, Source: EVENT_SOURCE, DetailType: EVENT_DETAIL_TYPE, Detail: JSON.stringify(event), Time: new Date(event.timestamp) };
}

/** Puts events on the bus; a partly failed put throws (the caller resumes at the first). */
export function eventBridgePublisher(busName: string, client = new EventBridgeClient({})): EventPublisher {
  return async (events) => {
    const { FailedEntryCount } = await client.send(new PutEventsCommand({ Entries: events.map((event) => busEntryOf(busName, event)) }));
    if (FailedEntryCount) throw new Error(`${FailedEntryCount} event(s) not put on the bus`);
  };
}
