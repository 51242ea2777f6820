/**
 * A team's latest signed audit checkpoint, `TEAM#<team_id>` /
 * `AUDIT_CHECKPOINT`: `{team_id, seq, hash, at}` with its ECDSA P-256
 * signature and the id of the key that signed it (docs/audit.md
 * "Checkpoints"). Replaced only by a checkpoint of a later `seq`; every
 * checkpoint is also kept in the archive bucket under Object Lock. Never
 * expires.
 */
import { NUMBER, STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';

const ATTRIBUTES = {
  pk: STRING,
  sk: STRING,
  entity: ['audit-checkpoint'],
  team_id: STRING,
  seq: NUMBER,
  hash: STRING,
  at: STRING,
  signature: STRING,
  key_id: STRING,
} as const;
export type AuditCheckpointItem = ItemOf<typeof ATTRIBUTES>;

export const AUDIT_CHECKPOINT = /* @__PURE__ */ defineEntity<AuditCheckpointItem>()({
  name: 'audit checkpoint',
  table: 'key',
  key: (teamId: string) => ({ pk: `TEAM#${teamId}`, sk: 'AUDIT_CHECKPOINT' }),
  attributes: ATTRIBUTES,
});

/** Read by the checkpoint route and the job (is the moved head already signed?); written by the job. */
export const AUDIT_CHECKPOINT_ACCESS = {
  readAuditCheckpoint: ['GetItem'],
  recordCheckpoint: ['PutItem'],
} as const satisfies EntityAccess;
