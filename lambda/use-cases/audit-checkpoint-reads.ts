/**
 * Reading the audit checkpoints: a team's latest (its managers, live keys)
 * and the public halves of every key that ever signed one (anyone: a
 * checkpoint is checked with them, offline).
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { assertOwnTeam } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import type { SignedCheckpoint, SigningKeyRecord } from '../domain/audit-checkpoints';
import type { ChainsPort } from '../store/ports';

/** The team's latest signed checkpoint; 404 while its chain has none yet (the job signs within the hour after a change). */
export async function latestAuditCheckpoint(ports: ChainsPort, caller: VerifiedKey, input: { team_id: string }): Promise<SignedCheckpoint> {
  assertOwnTeam(caller, input.team_id, "The calling key cannot read another team's audit checkpoint.");
  const checkpoint = await ports.chains.latestCheckpoint(caller.team_id);
  if (!checkpoint) {
    throw new ApiError(
      ErrorCode.NOT_FOUND,
      "The team's audit chain has no checkpoint yet: one is signed within the hour after the team's first audited change.",
      [{ field: 'team_id', issue: 'no checkpoint yet' }],
    );
  }
  return checkpoint;
}

/** Every key that ever signed a checkpoint, oldest first. */
export function auditPublicKeys(ports: ChainsPort): Promise<SigningKeyRecord[]> {
  return ports.chains.signingKeys();
}
