import type { ArchiveTarget } from '../../lambda/platform/archive-config';
/** What every part of the local runtime is (local/runtime.ts runs them in order). */
import type { DynamoLocal } from '../dynamodb-local';
import type { DataDirClaim } from '../data-dir-claim';
import type { LocalServer } from '../server';
import type { Observability } from '../../lambda/platform/observability';
import type { WebhookServices } from '../../lambda/composition/services';
import type { PlatformStage } from '../platform-stage';
import type { LocalSettings } from '../settings';

/** What the parts have started so far; each part adds its own piece. */
export interface LocalRuntimeContext {
  readonly settings: LocalSettings;
  /** The functions' logger and metrics: readable on a terminal, Lambda's JSON lines otherwise. */
  readonly observe: Observability;
  /** The runtime's own lines (access log, scheduler, stream poller): same output, no function's Lambda context. */
  readonly runtimeLog: Observability['logger'];
  dataDirClaim?: DataDirClaim;
  dynamo?: DynamoLocal;
  services?: WebhookServices;
  /** The platform API behind the platform authorizer (`/platform/<path>`). */
  platformStage?: PlatformStage;
  server?: LocalServer;
  /** Where the audit archive writes (its S3 API on loopback, or ARCHIVE_DIR): the audit checkpoints are kept there too. */
  archiveTarget?: ArchiveTarget;
}

/** Stops what a part started. */
export type StopPart = () => Promise<void> | void;

/** One piece of the local runtime. */
export interface LocalRuntimePart {
  readonly name: string;
  start(context: LocalRuntimeContext): Promise<StopPart | void>;
}

export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not started: check the order of LOCAL_RUNTIME_PARTS`);
  return value;
}
