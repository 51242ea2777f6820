/**
 * Identities (key table): each change one transaction with its audit record;
 * an identity's `external_id` is held unique in the team by its claim item,
 * written, swapped and removed in the same transaction as the identity.
 */
import type { MeterChange } from '../domain/meter-changes';
import { meterUpdateClauses } from './meter-updates';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditRecord } from '../domain/audit-events';
import type { IdentityItem } from '../domain/identities';
import type { OperationsOf } from '../contract/store-operations';
import { ABSENT, Transactions, type StoreTables, type TransactItem } from './transactions';
import { revisionUpdate, teamIndexPage } from './revision-writes';
import { IDENTITY, teamIdentitiesPartition } from './entities/identity';
import { EXTERNAL_ID_CLAIM, externalIdClaimOf } from './entities/identity-external-id';
import { IDENTITY_KEY, IDENTITY_KEY_PREFIX } from './entities/identity-key';
import { queryAll } from './query-all';
import { RecentMap } from '../platform/recent-map';
import type { MeteredSettler } from './process-memory';

/** The fields an update may change. */
export type IdentityChanges = Partial<Pick<IdentityItem, 'external_id' | 'meta'>>;

/** Why a write did not happen: the external id is another identity's, or the identity changed or went meanwhile. */
export type IdentityWriteRefusal = 'external_id_taken' | 'changed';

/** How long a process answers verifications from an identity it read (its meta and external id may be this stale). */
export const VERIFIED_IDENTITY_TTL_MS = 10_000;
/** Identities a process remembers for verification at most. */
const VERIFIED_IDENTITIES_KEPT = 10_000;

export class IdentityStore {
  private readonly transactions: Transactions;
  /** Identities read for verification, with when they were read (epoch ms). */
  private readonly verified = new RecentMap<string, { identity: IdentityItem | undefined; readAt: number }>(VERIFIED_IDENTITIES_KEPT);

  constructor(
    private readonly tables: StoreTables,
    /** This process's metered leases: what they hold of an identity's meter is written before a read of it. */
    private readonly meteredSettlers: ReadonlySet<MeteredSettler> = new Set(),
  ) {
    this.transactions = new Transactions(tables);
  }

  /** `createIdentity`: the identity, its external id's claim and the audit record; 'external_id_taken' when the team has that id. */
  async createIdentity(item: IdentityItem, audit: AuditRecord): Promise<true | IdentityWriteRefusal> {
    const outcome = await this.transactions.transact([
      { Put: { TableName: this.tables.keyTableName, Item: externalIdClaimOf(item), ConditionExpression: ABSENT } },
      { Put: { TableName: this.tables.keyTableName, Item: item, ConditionExpression: ABSENT } },
      this.transactions.putAudit(audit),
    ]);
    if (outcome.committed) return true;
    if (outcome.reasons[0] === 'ConditionalCheckFailed') return 'external_id_taken';
    throw new Error(`creating an identity was cancelled: ${outcome.reasons.join(', ')}`);
  }

  /** What this process's leases hold of the identity's meter (of every identity's when none is named), written before a read. */
  private readonly settleMetered = (identityId?: string) => Promise.all([...this.meteredSettlers].map((settler) => settler.settleIdentity(identityId)));

  /** `readIdentity`: an identity by id, strongly consistent. */
  async getIdentity(identityId: string): Promise<IdentityItem | undefined> {
    await this.settleMetered(identityId);
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: IDENTITY.key(identityId), ConsistentRead: true }));
    return IDENTITY.read(Item);
  }

  /**
   * `readIdentity`: the identity a verified key names, as a verification
   * answers it: read eventually consistent (half the cost) and remembered by
   * the process for VERIFIED_IDENTITY_TTL_MS, so a hot key's verifications
   * read it once per period, not once each.
   */
  async identityForVerification(identityId: string, now: number): Promise<IdentityItem | undefined> {
    const remembered = this.verified.get(identityId);
    if (remembered && now - remembered.readAt < VERIFIED_IDENTITY_TTL_MS && now >= remembered.readAt) return remembered.identity;
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: IDENTITY.key(identityId) }));
    const identity = IDENTITY.read(Item);
    this.verified.set(identityId, { identity, readAt: now });
    return identity;
  }

  /** `readIdentity`: the id of the team's identity with this external id, through its claim (undefined when none has it). */
  async identityIdByExternalId(teamId: string, externalId: string): Promise<string | undefined> {
    const { Item } = await this.tables.db.send(
      new GetCommand({ TableName: this.tables.keyTableName, Key: EXTERNAL_ID_CLAIM.key(teamId, externalId), ConsistentRead: true }),
    );
    return EXTERNAL_ID_CLAIM.read(Item)?.identity_id;
  }

  /** `listIdentities`: a page of a team's identities, oldest first (the team index is eventually consistent). */
  async listIdentities(teamId: string, limit: number, start?: Record<string, string>): Promise<{ items: IdentityItem[]; last?: Record<string, string> }> {
    // Every identity's: this process's leases on identities' meters are few, if any (only where verifications run).
    await this.settleMetered();
    const page = await teamIndexPage(this.tables, teamIdentitiesPartition(teamId), limit, start);
    return { items: IDENTITY.readAll(page.items), last: page.last };
  }

  /**
   * `changeIdentity`: sets `changes` if the identity is still at its
   * revision, with the audit record; a new external id takes its claim (refused when
   * the team's other identity holds it) and gives the old one back.
   */
  async changeIdentity(
    before: IdentityItem,
    changes: IdentityChanges,
    at: Date,
    audit: AuditRecord,
    meter?: MeterChange,
  ): Promise<true | IdentityWriteRefusal> {
    const items: TransactItem[] = [
      // The identity's item is its meter: a change of limits or credits is written on it, in the same update.
      revisionUpdate(this.tables.keyTableName, IDENTITY.key(before.id), before.revision, changes, at, meter && meterUpdateClauses(meter)),
      this.transactions.putAudit(audit),
    ];
    const renamed = changes.external_id !== undefined && changes.external_id !== before.external_id;
    if (renamed) {
      items.push(
        {
          Put: {
            TableName: this.tables.keyTableName,
            Item: externalIdClaimOf({ ...before, external_id: changes.external_id as string }),
            ConditionExpression: ABSENT,
          },
        },
        { Delete: { TableName: this.tables.keyTableName, Key: EXTERNAL_ID_CLAIM.key(before.team_id, before.external_id) } },
      );
    }
    const outcome = await this.transactions.transact(items);
    // This process's verifications read it again at once.
    if (outcome.committed) this.verified.delete(before.id);
    if (outcome.committed) return true;
    if (renamed && outcome.reasons[2] === 'ConditionalCheckFailed' && outcome.reasons[0] !== 'ConditionalCheckFailed') return 'external_id_taken';
    if (outcome.reasons[0] === 'ConditionalCheckFailed') return 'changed';
    throw new Error(`changing an identity was cancelled: ${outcome.reasons.join(', ')}`);
  }

  /** `listIdentityKeys`: the ids of the keys that name the identity (its membership items, strongly consistent). */
  async identityKeyIds(identityId: string): Promise<string[]> {
    const memberships = await queryAll(
      this.tables.db,
      {
        TableName: this.tables.keyTableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': IDENTITY.key(identityId).pk, ':prefix': IDENTITY_KEY_PREFIX },
        ConsistentRead: true,
      },
      IDENTITY_KEY.readAll,
    );
    return memberships.map((membership) => membership.key_id);
  }

  /**
   * `deleteIdentity`: the identity (if still at its revision and no key names
   * it) and its external id's claim, with the audit record; 'changed' when it
   * changed, went, or a key joined it meanwhile.
   */
  async deleteIdentity(identity: IdentityItem, audit: AuditRecord): Promise<true | IdentityWriteRefusal> {
    const outcome = await this.transactions.transact([
      {
        Delete: {
          TableName: this.tables.keyTableName,
          Key: IDENTITY.key(identity.id),
          ConditionExpression: '#revision = :revision AND (attribute_not_exists(key_count) OR key_count = :none)',
          ExpressionAttributeNames: { '#revision': 'revision' },
          ExpressionAttributeValues: { ':revision': identity.revision, ':none': 0 },
        },
      },
      { Delete: { TableName: this.tables.keyTableName, Key: EXTERNAL_ID_CLAIM.key(identity.team_id, identity.external_id) } },
      this.transactions.putAudit(audit),
    ]);
    if (outcome.committed) return true;
    if (outcome.reasons[0] === 'ConditionalCheckFailed') return 'changed';
    throw new Error(`deleting an identity was cancelled: ${outcome.reasons.join(', ')}`);
  }
}

/** Each public method of IdentityStore and the declared storage operation it is part of. */
export const IDENTITY_STORE_OPERATIONS = {
  createIdentity: 'createIdentity',
  getIdentity: 'readIdentity',
  identityForVerification: 'readIdentity',
  identityIdByExternalId: 'readIdentity',
  listIdentities: 'listIdentities',
  changeIdentity: 'changeIdentity',
  deleteIdentity: 'deleteIdentity',
  identityKeyIds: 'listIdentityKeys',
} as const satisfies OperationsOf<IdentityStore>;
