/**
 * The hourly audit checkpoints (docs/audit.md "Checkpoints"): for each team
 * whose chain moved since its last checkpoint, its head `{team_id, seq,
 * hash, at}` is signed, kept as the team's latest, written to the archive
 * bucket (Object Lock, write-once per team and seq) and sent to the team as
 * an `audit.checkpoint` lifecycle event through its webhooks, so a copy
 * lives outside the service. A checkpoint is not an audit record: it never
 * moves the chain.
 *
 * At most one signature per team and run (so ≤ 24 a day on the hourly
 * schedule); a run that stopped half-way is finished by the next one: the
 * head stays on the moved list until its checkpoint was archived and sent,
 * and archiving and sending again are harmless (write-once object; the
 * event's `webhook-id` is the same, so receivers deduplicate). The team's
 * head is only taken off the list while it is still at the signed seq.
 */
import { createHash } from 'node:crypto';
import { checkpointMessage, checkpointObjectKey, type CheckpointSigner, type SignedCheckpoint } from '../domain/audit-checkpoints';
import type { ArchiveWriter } from '../domain/archive-writer';
import type { LifecycleEvent } from '../domain/lifecycle-events';
import type { ChainHead } from '../domain/audit-chain';
import type { ChainsPort, ClockPort, ObservePort } from '../store/ports';
import type { EventPublisher } from './event-publishing';

/** What the checkpoint job uses: the chain store, the signer, the archive, the bus (or the local delivery), the clock. */
export type CheckpointPorts = ChainsPort &
  ClockPort &
  ObservePort & { readonly signer: CheckpointSigner; readonly archive: ArchiveWriter; readonly publish: EventPublisher };

export interface CheckpointRunSummary {
  /** Teams whose chain had moved. */
  moved: number;
  /** Checkpoints signed in this run. */
  signed: number;
  /** Teams whose checkpoint could not be finished (left on the list for the next run). */
  failed: number;
}

/** The `audit.checkpoint` event of a checkpoint: the same id for the same team and seq. */
export function checkpointEvent(checkpoint: SignedCheckpoint): LifecycleEvent {
  const id = createHash('sha256').update(`${checkpoint.team_id}\n${checkpoint.seq}`).digest('base64url').slice(0, 26);
  return { id: `msg_ckpt_${id}`, type: 'audit.checkpoint', timestamp: checkpoint.at, team_id: checkpoint.team_id, data: { ...checkpoint } };
}

/** The team's checkpoint of `head`: its latest when that covers the head already, else a new one signed now. */
async function checkpointOf(
  ports: CheckpointPorts,
  head: ChainHead & { team_id: string },
  keyId: string,
): Promise<{ checkpoint: SignedCheckpoint; signed: boolean }> {
  const latest = await ports.chains.latestCheckpoint(head.team_id);
  if (latest && latest.seq >= head.seq) return { checkpoint: latest, signed: false };
  const statement = { team_id: head.team_id, seq: head.seq, hash: head.hash, at: ports.clock.now().toISOString() };
  const signature = await ports.signer.sign(checkpointMessage(statement));
  const made: SignedCheckpoint = { ...statement, signature: signature.toString('base64'), key_id: keyId };
  if (await ports.chains.recordCheckpoint(made)) return { checkpoint: made, signed: true };
  // Another run kept one of this seq (or a later) first: that one is the team's.
  return { checkpoint: (await ports.chains.latestCheckpoint(head.team_id)) ?? made, signed: true };
}

/** Teams checkpointed at once: six requests each (read, sign, keep, archive, send, settle), so a run of five minutes covers thousands. */
const TEAMS_AT_ONCE = 8;

/** The signers whose key this process has recorded: each once, not on every run. */
const recordedSigners = new WeakSet<CheckpointSigner>();

/**
 * The signer's public key, recorded (once per process and signer) before
 * its first signature, so that every key that ever signed stays listed
 * (the public-key route). The local runtime calls it at start.
 */
export async function recordedSigningKey(
  ports: Pick<CheckpointPorts, 'chains' | 'clock' | 'signer'>,
): Promise<Awaited<ReturnType<CheckpointSigner['publicKey']>>> {
  const key = await ports.signer.publicKey();
  if (!recordedSigners.has(ports.signer)) {
    await ports.chains.recordSigningKey({ ...key, created_at: ports.clock.now().toISOString() });
    recordedSigners.add(ports.signer);
  }
  return key;
}

/** One run over every moved chain (`onlyTeams`: those teams only, for an operator's or a test's run). */
export async function checkpointMovedChains(ports: CheckpointPorts, onlyTeams?: readonly string[]): Promise<CheckpointRunSummary> {
  const key = await recordedSigningKey(ports);
  const summary: CheckpointRunSummary = { moved: 0, signed: 0, failed: 0 };
  const heads = (await ports.chains.movedChains()).filter((head) => !onlyTeams || onlyTeams.includes(head.team_id));
  summary.moved = heads.length;
  const work = async () => {
    for (let head = heads.shift(); head; head = heads.shift()) await checkpointTeam(ports, head, key.key_id, summary);
  };
  await Promise.all(Array.from({ length: Math.min(TEAMS_AT_ONCE, heads.length) }, work));
  return summary;
}

/** One team's checkpoint: signed (or the latest, when it covers the head), archived, sent, the head settled; a failure is left for the next run. */
async function checkpointTeam(ports: CheckpointPorts, head: ChainHead & { team_id: string }, keyId: string, summary: CheckpointRunSummary): Promise<void> {
  try {
    const { checkpoint, signed } = await checkpointOf(ports, head, keyId);
    if (signed) summary.signed++;
    await ports.archive.put(checkpointObjectKey(checkpoint), Buffer.from(`${JSON.stringify(checkpoint)}\n`, 'utf8'));
    await ports.publish([checkpointEvent(checkpoint)]);
    await ports.chains.settleHead(head.team_id, checkpoint.seq);
  } catch (error) {
    summary.failed++;
    ports.observe.logger.warn('audit checkpoint not finished; the next run retries it', { team_id: head.team_id, error: String(error) });
  }
}
