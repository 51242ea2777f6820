/**
 * The claim that holds an identity's `external_id` unique in its team:
 * `IDENTITY_EXTERNAL_ID#<team>#<external_id>` / `IDENTITY_EXTERNAL_ID`,
 * naming the identity. Written with the identity (a create fails on a taken
 * id), swapped in the same transaction when the id changes, removed with it.
 */
import type { IdentityItem } from '../../domain/identities';
import { STRING, defineEntity, type EntityAccess, type ItemOf } from './entity';

const CLAIM_ATTRIBUTES = { pk: STRING, sk: STRING, entity: ['identity-external-id'], identity_id: STRING, team_id: STRING } as const;

/** The claim that holds an `external_id` for one identity of the team. */
export type ExternalIdClaim = ItemOf<typeof CLAIM_ATTRIBUTES>;

export const EXTERNAL_ID_CLAIM = /* @__PURE__ */ defineEntity<ExternalIdClaim>()({
  name: 'identity external id',
  table: 'key',
  key: (teamId: string, externalId: string) => ({ pk: `IDENTITY_EXTERNAL_ID#${teamId}#${externalId}`, sk: 'IDENTITY_EXTERNAL_ID' }),
  attributes: CLAIM_ATTRIBUTES,
});

/** The claim item of `identity`'s external id. */
export const externalIdClaimOf = (identity: Pick<IdentityItem, 'id' | 'team_id' | 'external_id'>): ExternalIdClaim => ({
  ...EXTERNAL_ID_CLAIM.key(identity.team_id, identity.external_id),
  entity: 'identity-external-id',
  identity_id: identity.id,
  team_id: identity.team_id,
});

/** The access patterns on external-id claims. */
export const EXTERNAL_ID_CLAIM_ACCESS = {
  createIdentity: ['PutItem'],
  readIdentity: ['GetItem'],
  changeIdentity: ['PutItem', 'DeleteItem'],
  deleteIdentity: ['DeleteItem'],
} as const satisfies EntityAccess;
