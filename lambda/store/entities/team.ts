/**
 * A team: `TEAM#<team_id>` / `TEAM`, its usage plan and its API Gateway key
 * (the usage identifier its requests are throttled by); never expires.
 */
import type { TeamItem } from '../../domain/model';
import { STRING, defineEntity, type EntityAccess } from './entity';

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
  },
});

/** The access patterns on team items (written only by the operator's bootstrap). */
export const TEAM_ACCESS = {
  readTeam: ['GetItem'],
} as const satisfies EntityAccess;
