/**
 * Invoked every hour by a schedule rule: signs a checkpoint of each team's
 * audit chain that moved since its last one, keeps it in the archive
 * bucket and sends it to the team (use-cases/audit-checkpoints.ts,
 * docs/audit.md "Checkpoints"). A run that fails part-way is finished by
 * the next; the local runtime runs the same job on its own timer
 * (`AUDIT_CHECKPOINT_SECONDS`).
 */
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { observed } from '../platform/observed';
import { checkpointMovedChains, recordedSigningKey, type CheckpointPorts, type CheckpointRunSummary } from '../use-cases/audit-checkpoints';
import { lambdaCheckpointPorts } from '../composition/checkpoints';

/** The job as the hourly rule runs it (the local runtime's timer calls it too). */
export { checkpointMovedChains as runCheckpoints, recordedSigningKey, type CheckpointPorts };

export const makeHandler = (ports: () => CheckpointPorts) =>
  middy<ScheduledEvent, CheckpointRunSummary>({ timeoutEarlyInMillis: 0 })
    .use(observed<ScheduledEvent, CheckpointRunSummary>(() => ports().observe, { route: () => 'checkpoint-audit' }))
    .handler(async () => {
      const summary = await checkpointMovedChains(ports());
      ports().observe.logger.info('audit checkpoints signed', { ...summary });
      return summary;
    });

export const handler = makeHandler(lambdaCheckpointPorts());
