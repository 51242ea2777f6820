import path from 'node:path';
import { deliverEvent } from '../../lambda/handlers/deliver-webhooks';
import { recordedSigningKey, runCheckpoints, type CheckpointPorts } from '../../lambda/handlers/checkpoint-audit';
import { localCheckpointPorts } from '../../lambda/composition/checkpoints';
import { required, type LocalRuntimePart } from './part';

/** The signing key of this runtime's checkpoints, kept in its data directory (never committed: the folder is the runtime's own). */
export const signingKeyFile = (dataDir: string) => path.join(dataDir, 'audit-signing-key.pem');

/**
 * The audit checkpoints, as the deployed hourly job runs them
 * (docs/audit.md): every `AUDIT_CHECKPOINT_SECONDS` each team chain that
 * moved is signed with the data directory's P-256 key, kept in this
 * runtime's archive and delivered to the team's webhooks at once.
 */
export const auditCheckpointsPart: LocalRuntimePart = {
  name: 'audit checkpoints',
  async start(context) {
    const services = required(context.services, 'the services');
    const ports: CheckpointPorts = localCheckpointPorts(services, {
      signingKeyFile: signingKeyFile(context.settings.dataDir),
      archive: required(context.archiveTarget, 'the audit archive'),
      publish: async (events) => {
        for (const event of events) await deliverEvent(services, event);
      },
    });
    // The key is listed from the start (the public-key route), before its first signature.
    await recordedSigningKey(ports);
    let running: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      running = runCheckpoints(ports).then(
        (summary) => {
          if (summary.moved > 0) context.runtimeLog.info('audit checkpoints signed', { ...summary });
        },
        (error: unknown) => context.runtimeLog.warn('audit checkpoints failed; the next run retries', { error: String(error) }),
      );
    }, context.settings.auditCheckpointSeconds * 1000);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await running;
    };
  },
};
