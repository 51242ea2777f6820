import path from 'node:path';
import { makeHandler as makePublishHandler } from '../../lambda/handlers/publish-events';
import { deliverEvent } from '../../lambda/handlers/deliver-webhooks';
import { startAuditStreamArchiver } from '../audit-stream';
import type { LocalRuntimePart } from './part';

/** The local bus: the audit stream's lifecycle events, each delivered at once (its own checkpoint beside the archive's). */
export const webhookEventsPart: LocalRuntimePart = {
  name: 'webhook events',
  async start(context) {
    const services = context.services;
    const dynamo = context.dynamo;
    if (!services || !dynamo) throw new Error('webhook events start after the services: check the order of LOCAL_RUNTIME_PARTS');
    const handler = makePublishHandler(async (events) => {
      for (const event of events) await deliverEvent(services, event);
    }, context.observe);
    const reader = await startAuditStreamArchiver({
      dynamoEndpoint: dynamo.endpoint,
      auditTableName: context.settings.auditTableName,
      handler,
      logger: context.runtimeLog,
      pollMs: 500,
      checkpointFile: path.join(context.settings.dataDir, 'event-stream-checkpoint.json'),
    });
    return () => reader.stop();
  },
};
