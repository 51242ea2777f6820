/**
 * The checkpoint job's ports (use-cases/audit-checkpoints.ts): its chain
 * store, the KMS signer, the archive bucket and the bus in AWS; the local
 * runtime passes its own (a key in its data directory, its archive, its
 * in-process delivery).
 */
import type { CheckpointPorts } from '../use-cases/audit-checkpoints';
import { kmsCheckpointSigner } from '../adapters/checkpoint-signer-kms';
import { fileCheckpointSigner } from '../adapters/checkpoint-signer-file';
import type { ArchiveTarget } from '../platform/archive-config';
import type { EventPublisher } from '../domain/lifecycle-events';
import { eventBridgePublisher } from '../adapters/event-bus-eventbridge';
import { archiveConfig } from '../platform/archive-config';
import { requiredSetting } from '../platform/environment';
import { archiveWriterFor } from './archive';
import { handlerServices } from './handler-services';

/** The ports in Lambda, built on first use. */
export function lambdaCheckpointPorts(): () => CheckpointPorts {
  const services = handlerServices('checkpoint-audit');
  let ports: CheckpointPorts | undefined;
  return () =>
    (ports ??= {
      ...services(),
      signer: kmsCheckpointSigner(requiredSetting('AUDIT_SIGNING_KEY_ARN')),
      archive: archiveWriterFor(archiveConfig.target),
      publish: eventBridgePublisher(requiredSetting('EVENT_BUS_NAME')),
    });
}

/** The ports of the local runtime (and the tests): a P-256 key in `signingKeyFile`, the runtime's own archive and event delivery. */
export function localCheckpointPorts(
  services: Omit<CheckpointPorts, 'signer' | 'archive' | 'publish'>,
  options: { signingKeyFile: string; archive: ArchiveTarget; publish: EventPublisher },
): CheckpointPorts {
  return { ...services, signer: fileCheckpointSigner(options.signingKeyFile), archive: archiveWriterFor(options.archive), publish: options.publish };
}
