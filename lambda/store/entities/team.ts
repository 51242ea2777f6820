/**
 * A team: `TEAM#<team_id>` / `TEAM`, its usage plan and its API Gateway key
 * (the usage identifier its requests are throttled by); never expires.
 */
import type { TeamItem } from '../../domain/model';
import { OPTIONAL_NUMBER, OPTIONAL_STRING, STRING, defineEntity, type EntityAccess } from './entity';

export const TEAM = /* @__PURE__ */ defineEntity<TeamItem>()({
  name: 'team',
  table: 'key',
  key: (teamId: string) => ({ pk: `TEAM#${teamId}`, sk: 'TEAM' }),
  attributes: {
    pk: STRING,
    sk: STRING,
    entity: ['team'],
    team_id: STRING,
    plan: STRING,
    usage_key_id: STRING,
    usage_key: STRING,
    created_at: STRING,
    updated_at: STRING,
    disable_unused_after_days: 'number|null?',
    settings_revision: OPTIONAL_NUMBER,
    settings_updated_at: OPTIONAL_STRING,
    gsi1pk: OPTIONAL_STRING,
    gsi1sk: OPTIONAL_STRING,
  },
});

/** The team index's partition of the teams whose settings have a `disable_unused_after_days` policy. */
export const UNUSED_POLICY_PARTITION = 'POLICY#disable_unused';

/** The access patterns on team items (written only by the operator's bootstrap). */
export const TEAM_ACCESS = {
  readTeam: ['GetItem'],
  changeTeamSettings: ['UpdateItem'],
  listUnusedPolicies: ['Query byTeam'],
} as const satisfies EntityAccess;
