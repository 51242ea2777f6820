/**
 * The local runtime: a list of parts (local/parts/), started in order and
 * stopped in reverse: lock the data directory, DynamoDB Local, the tables,
 * the services and schedulers, the webhook events, the audit archive, the
 * platform stage, the HTTP API.
 */
import { DynamoPortInUseError } from './dynamodb-local';
import { JavaNotFoundError } from './java-launcher';
import { DataDirInUseError } from './data-dir-claim';
import type { Observability } from '../lambda/platform/observability';
import { terminalObservability } from './terminal-observability';
import { webhookEventsPart } from './parts/webhook-events';
import type { LocalRuntimeContext, LocalRuntimePart, StopPart } from './parts/part';
import { dataDirPart } from './parts/data-dir';
import { dynamoLocalPart } from './parts/dynamodb';
import { tablesPart } from './parts/tables';
import { servicesPart } from './parts/services';
import { auditArchivePart } from './parts/audit-archive';
import { auditCheckpointsPart } from './parts/audit-checkpoints';
import { platformStagePart } from './parts/platform-stage';
import { httpServerPart } from './parts/http-server';
import { SettingsError, type LocalSettings } from './settings';

/** The parts `npm start` runs, in start order. */
export const LOCAL_RUNTIME_PARTS: readonly LocalRuntimePart[] = [
  dataDirPart,
  dynamoLocalPart,
  tablesPart,
  servicesPart,
  auditArchivePart,
  auditCheckpointsPart,
  webhookEventsPart,
  platformStagePart,
  httpServerPart,
];

export interface LocalRuntime {
  readonly context: LocalRuntimeContext;
  /** Stops every started part in reverse order. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `parts` in order. If one fails, the ones already started are
 * stopped before the error is rethrown.
 */
export async function startLocalRuntime(
  settings: LocalSettings,
  parts: readonly LocalRuntimePart[] = LOCAL_RUNTIME_PARTS,
  observe: Observability = terminalObservability(),
  runtimeLog: Observability['logger'] = terminalObservability().logger,
): Promise<LocalRuntime> {
  const context: LocalRuntimeContext = { settings, observe, runtimeLog };
  const stops: Array<{ name: string; stop: StopPart }> = [];
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      for (const { name, stop: stopPart } of stops.reverse()) {
        try {
          await stopPart();
        } catch (error) {
          console.error(`Stopping ${name} failed: ${(error as Error).message}`);
        }
      }
    })();
    return stopping;
  };

  for (const part of parts) {
    try {
      const stopPart = await part.start(context);
      if (stopPart) stops.push({ name: part.name, stop: stopPart });
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return { context, stop };
}

/** Errors whose message is the whole story (no stack trace for the operator). */
export function isOperatorError(error: unknown): error is Error {
  return error instanceof JavaNotFoundError || error instanceof DataDirInUseError || error instanceof SettingsError || error instanceof DynamoPortInUseError;
}
