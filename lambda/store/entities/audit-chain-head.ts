/**
 * A team's audit chain head, `TEAM#<team_id>` / `AUDIT_CHAIN`: the `seq` and
 * `hash` of its last chained audit record (domain/audit-chain.ts). Every
 * change that writes an audit record reads it, then advances it in the same
 * transaction on condition that `seq` is still what it read, so concurrent
 * changes of a team serialize and none is lost. While the chain has moved
 * since its last checkpoint, the head sits on the team index under
 * `AUDIT_CHAIN#moved` (the hourly checkpoint job's list); the job takes it
 * off once it has signed that `seq`. Never expires.
 */
import { NUMBER, OPTIONAL_STRING, STRING, defineEntity, type EntityAccess, type IndexKey, type ItemOf } from './entity';
import { AUDIT_RECORD_ACCESS } from './audit-record';

const ATTRIBUTES = {
  pk: STRING,
  sk: STRING,
  entity: ['audit-chain-head'],
  team_id: STRING,
  seq: NUMBER,
  hash: STRING,
  updated_at: STRING,
  gsi1pk: OPTIONAL_STRING,
  gsi1sk: OPTIONAL_STRING,
} as const;
export type AuditChainHeadItem = ItemOf<typeof ATTRIBUTES>;

export const AUDIT_CHAIN_HEAD = /* @__PURE__ */ defineEntity<AuditChainHeadItem>()({
  name: 'audit chain head',
  table: 'key',
  key: (teamId: string) => ({ pk: `TEAM#${teamId}`, sk: 'AUDIT_CHAIN' }),
  attributes: ATTRIBUTES,
});

/** The team index's partition of the chains that moved since their last checkpoint. */
export const MOVED_CHAINS_PARTITION = 'AUDIT_CHAIN#moved';

/** A moved head's place on the team index. */
export const movedChainIndex = (teamId: string): IndexKey => ({ gsi1pk: MOVED_CHAINS_PARTITION, gsi1sk: teamId });

/** Every operation that writes an audit record reads the head and advances it; the checkpoint job lists moved heads and takes them off the list. */
export const AUDIT_CHAIN_HEAD_ACCESS = /* @__PURE__ */ headAccess();

/* @__NO_SIDE_EFFECTS__ */
function headAccess() {
  const linking = Object.entries(AUDIT_RECORD_ACCESS)
    .filter(([, requests]) => (requests as readonly string[]).includes('PutItem'))
    .map(([operation]) => [operation, ['GetItem', 'UpdateItem']]);
  return {
    ...(Object.fromEntries(linking) as EntityAccess),
    listMovedChains: ['Query byTeam'],
    recordCheckpoint: ['UpdateItem'],
  } as const satisfies EntityAccess;
}
