/**
 * An identity: `IDENTITY#<id>` / `IDENTITY`, on the team index as
 * `IDENTITIES#<team>` / `IDENTITY#<id>` (a partition of its own, apart from
 * the team's keys and endpoints). Its `external_id` is held unique in the
 * team by a claim item, `IDENTITY_EXTERNAL_ID#<team>#<external_id>` /
 * `IDENTITY_EXTERNAL_ID`, written and removed in the same transaction as the
 * identity (identity-external-id.ts).
 */
import type { IdentityItem } from '../../domain/identities';
import { ANY_ID, NUMBER, OPTIONAL_NUMBER, OPTIONAL_STRING, STRING, defineEntity, positionOf, type EntityAccess, type IndexKey } from './entity';

export const IDENTITY = /* @__PURE__ */ defineEntity<IdentityItem>()({
  name: 'identity',
  table: 'key',
  key: (identityId: string) => ({ pk: `IDENTITY#${identityId}`, sk: 'IDENTITY' }),
  attributes: {
    pk: STRING,
    sk: STRING,
    entity: ['identity'],
    id: STRING,
    team_id: STRING,
    external_id: STRING,
    meta: STRING,
    created_at: STRING,
    updated_at: STRING,
    created_by: STRING,
    revision: NUMBER,
    key_count: OPTIONAL_NUMBER,
    meter_def: OPTIONAL_STRING,
    gsi1pk: STRING,
    gsi1sk: STRING,
  },
});

/** The team index's partition of a team's identities. */
export const teamIdentitiesPartition = (teamId: string): string => `IDENTITIES#${teamId}`;

/** An identity's place on the team index. */
export const identityTeamIndex = (teamId: string, identityId: string): IndexKey => ({
  gsi1pk: teamIdentitiesPartition(teamId),
  gsi1sk: `IDENTITY#${identityId}`,
});

/** The last identity of a page of a team's identities (the identity list's cursor). */
export const teamIdentitiesPage = (teamId: string) => positionOf({ ...IDENTITY.key(ANY_ID), ...identityTeamIndex(teamId, ANY_ID) });

/** A new identity's item: revision 1, created and updated `at`, its metadata kept as JSON text. */
export const newIdentityItem = (
  id: string,
  fields: Pick<IdentityItem, 'team_id' | 'external_id' | 'created_by'> & { meta?: Record<string, unknown> },
  at: string,
): IdentityItem => ({
  ...IDENTITY.key(id),
  ...identityTeamIndex(fields.team_id, id),
  ...fields,
  entity: 'identity',
  id,
  meta: JSON.stringify(fields.meta ?? {}),
  created_at: at,
  updated_at: at,
  revision: 1,
});

/** The access patterns on identities. */
export const IDENTITY_ACCESS = {
  createIdentity: ['PutItem'],
  readIdentity: ['GetItem'],
  listIdentities: ['Query byTeam'],
  changeIdentity: ['UpdateItem'],
  deleteIdentity: ['DeleteItem'],
  createKey: ['UpdateItem'],
  updateKey: ['UpdateItem'],
  tombstoneKey: ['UpdateItem'],
  // The identity's item is the meter of its limits and credits.
  admitMeteredUse: ['UpdateItem', 'BatchGetItem'],
  admitSharedMeteredUse: ['UpdateItem'],
  adjustCredits: ['UpdateItem', 'GetItem'],
} as const satisfies EntityAccess;
