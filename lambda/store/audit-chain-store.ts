/**
 * The audit chains' checkpoints as stored: the heads that moved since their
 * last checkpoint, each team's latest signed checkpoint, and the public
 * halves of the keys that signed them (docs/audit.md "Checkpoints").
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SignedCheckpoint, SigningKeyRecord } from '../domain/audit-checkpoints';
import type { ChainHead } from '../domain/audit-chain';
import type { OperationsOf } from '../contract/store-operations';
import { ABSENT, type StoreTables } from './transactions';
import { teamIndexPartition } from './query-all';
import { conditionHeld } from './condition-held';
import { AUDIT_CHAIN_HEAD, MOVED_CHAINS_PARTITION } from './entities/audit-chain-head';
import { AUDIT_CHECKPOINT } from './entities/audit-checkpoint';
import { AUDIT_SIGNING_KEY, SIGNING_KEYS_PARTITION, signingKeyIndex } from './entities/audit-signing-key';

export class AuditChainStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** `listMovedChains`: every team whose chain moved since its last checkpoint, at its head as the index shows it. */
  async movedChains(): Promise<Array<ChainHead & { team_id: string }>> {
    const heads = await teamIndexPartition(this.tables, MOVED_CHAINS_PARTITION, AUDIT_CHAIN_HEAD.readAll);
    return heads.map((head) => ({ team_id: head.team_id, seq: head.seq, hash: head.hash }));
  }

  /** `readAuditCheckpoint`: the team's latest signed checkpoint, if it has one. */
  async latestCheckpoint(teamId: string): Promise<SignedCheckpoint | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: AUDIT_CHECKPOINT.key(teamId), ConsistentRead: true }),
    );
    const item = AUDIT_CHECKPOINT.read(Item);
    return item && { team_id: item.team_id, seq: item.seq, hash: item.hash, at: item.at, signature: item.signature, key_id: item.key_id };
  }

  /** `recordCheckpoint`: `checkpoint` kept as the team's latest, unless one of the same or a later seq is (false then). */
  recordCheckpoint(checkpoint: SignedCheckpoint): Promise<boolean> {
    return conditionHeld(
      this.tables.db.send(
        new PutCommand({
          TableName: this.tables.keyTableName,
          Item: { ...AUDIT_CHECKPOINT.key(checkpoint.team_id), entity: 'audit-checkpoint', ...checkpoint },
          ConditionExpression: 'attribute_not_exists(pk) OR seq < :seq',
          ExpressionAttributeValues: { ':seq': checkpoint.seq },
        }),
      ),
    );
  }

  /** `recordCheckpoint`: the team's head off the moved list, if it is still at `seq` (false when it moved on: the next run signs it). */
  settleHead(teamId: string, seq: number): Promise<boolean> {
    return conditionHeld(
      this.tables.db.send(
        new UpdateCommand({
          TableName: this.tables.keyTableName,
          Key: AUDIT_CHAIN_HEAD.key(teamId),
          UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'seq = :seq',
          ExpressionAttributeValues: { ':seq': seq },
        }),
      ),
    );
  }

  /** `recordSigningKey`: a signing key's public half, once (false when it was recorded already). */
  recordSigningKey(key: SigningKeyRecord): Promise<boolean> {
    return conditionHeld(
      this.tables.db.send(
        new PutCommand({
          TableName: this.tables.keyTableName,
          Item: {
            ...AUDIT_SIGNING_KEY.key(key.key_id),
            ...signingKeyIndex(key.key_id, key.created_at),
            entity: 'audit-signing-key',
            ...key,
            jwk: JSON.stringify(key.jwk),
          },
          ConditionExpression: ABSENT,
        }),
      ),
    );
  }

  /** `listSigningKeys`: every key that ever signed a checkpoint, oldest first. */
  async signingKeys(): Promise<SigningKeyRecord[]> {
    const items = await teamIndexPartition(this.tables, SIGNING_KEYS_PARTITION, AUDIT_SIGNING_KEY.readAll);
    return items.map((item) => ({ key_id: item.key_id, pem: item.pem, jwk: JSON.parse(item.jwk) as SigningKeyRecord['jwk'], created_at: item.created_at }));
  }
}

/** Each public method of AuditChainStore and the declared storage operation it is part of. */
export const AUDIT_CHAIN_STORE_OPERATIONS = {
  movedChains: 'listMovedChains',
  latestCheckpoint: 'readAuditCheckpoint',
  recordCheckpoint: 'recordCheckpoint',
  settleHead: 'recordCheckpoint',
  recordSigningKey: 'recordSigningKey',
  signingKeys: 'listSigningKeys',
} as const satisfies OperationsOf<AuditChainStore>;
