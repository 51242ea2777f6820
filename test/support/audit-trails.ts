/** A team's chained audit trail and a checkpoint signed over it, made up for the verifier's tests and its bench. */
import { sign, type KeyObject } from 'node:crypto';
import { EMPTY_CHAIN, linkRecord, type ChainHead } from '../../lambda/domain/audit-chain';
import { checkpointMessage, type SignedCheckpoint } from '../../lambda/domain/audit-checkpoints';

export type TrailRecord = Record<string, unknown>;

/** `count` chained `key.updated` records of `teamId`, oldest first, as the audit route lists them (order=chain). */
export function chainedTrail(teamId: string, count: number): TrailRecord[] {
  const records: TrailRecord[] = [];
  let head: ChainHead = EMPTY_CHAIN;
  for (let at = 0; at < count; at++) {
    const record = linkRecord(
      {
        event_id: `01JZ${String(at).padStart(22, '0')}`,
        event_type: 'key.updated',
        occurred_at: new Date(Date.UTC(2026, 0, 1) + at * 1000).toISOString(),
        key_id: '01JZ0000000000000000000KEY',
        team_id: teamId,
        actor: { user_id: 'u1', key_id: '01JZ00000000000000000ACTOR', source_ip: '203.0.113.7', user_agent: 'curl/8.5.0', request_id: `req-${at}` },
        changes: { name: { before: `name ${at}`, after: `name ${at + 1}` }, is_active: { before: true, after: at % 2 === 0 } },
      },
      head,
    );
    head = { seq: record.seq, hash: record.hash };
    records.push({ ...record });
  }
  return records;
}

/** A checkpoint of the trail's last record, signed with `privateKey` (P-256) as the checkpoint job signs. */
export function signedCheckpoint(records: readonly TrailRecord[], privateKey: KeyObject, at = '2026-11-29T11:00:00.000Z'): SignedCheckpoint {
  const last = records[records.length - 1] as { team_id: string; seq: number; hash: string };
  const statement = { team_id: last.team_id, seq: last.seq, hash: last.hash, at };
  return { ...statement, signature: sign('sha256', checkpointMessage(statement), { key: privateKey, dsaEncoding: 'der' }).toString('base64'), key_id: 'k1' };
}
