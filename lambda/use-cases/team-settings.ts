/**
 * A team's settings (its settings routes read and change them): its
 * `disable_unused_after_days` policy (null: none; 30–730), kept on the team
 * item with a revision of its own (the ETag; If-Match honoured). A change
 * is one transaction with its `team.settings_updated` audit record, on the
 * calling key's trail and the team's; a change that changes nothing writes
 * nothing. The daily job that applies the policy: unused-keys.ts.
 */
import { ApiError, ErrorCode } from '../contract/errors';
import { AuditEventType } from '../domain/audit-events';
import { actorOf, type RequestMeta } from '../domain/actor';
import { assertPrecondition, type Precondition } from '../domain/revision';
import type { TeamItem } from '../domain/model';
import { assertOwnTeam } from '../policy/authorization';
import type { VerifiedKey } from '../verification/verify';
import type { ClockPort, TeamsPort } from '../store/ports';
import { auditItem } from '../store/entities/audit-record';

/** The bounds of `disable_unused_after_days`: a month to two years. */
export const MIN_UNUSED_DAYS = 30;
export const MAX_UNUSED_DAYS = 730;

export interface TeamSettings {
  team_id: string;
  /** Keys with no VALID use in this many days are disabled by the daily job; null: never. */
  disable_unused_after_days: number | null;
  /** When the settings last changed (the team's creation until then). */
  updated_at: string;
}

/** The settings and their entity tag (`"<revision>"`, `"0"` before the first change). */
export interface TaggedSettings {
  resource: TeamSettings;
  entityTag: string;
}

const revisionOf = (team: TeamItem) => team.settings_revision ?? 0;

function taggedOf(team: TeamItem): TaggedSettings {
  return {
    resource: {
      team_id: team.team_id,
      disable_unused_after_days: team.disable_unused_after_days ?? null,
      updated_at: team.settings_updated_at ?? team.updated_at,
    },
    entityTag: `"${revisionOf(team)}"`,
  };
}

async function ownTeam(services: TeamsPort, caller: VerifiedKey, teamId: string): Promise<TeamItem> {
  assertOwnTeam(caller, teamId, 'The calling key cannot reach the settings of another team.');
  const team = await services.teams.getTeam(teamId);
  if (!team) throw new ApiError(ErrorCode.NOT_FOUND, 'The team has no settings: it was never set up (npm run bootstrap, or the operator).');
  return team;
}

export async function getTeamSettings(services: TeamsPort, caller: VerifiedKey, input: { team_id: string }): Promise<TaggedSettings> {
  return taggedOf(await ownTeam(services, caller, input.team_id));
}

export async function updateTeamSettings(
  services: TeamsPort & ClockPort,
  caller: VerifiedKey,
  input: { team_id: string; disable_unused_after_days: number | null },
  meta: RequestMeta,
  precondition?: Precondition,
): Promise<TaggedSettings> {
  const team = await ownTeam(services, caller, input.team_id);
  assertPrecondition(precondition, { revision: revisionOf(team) }, 'team settings');
  const before = team.disable_unused_after_days ?? null;
  if (before === input.disable_unused_after_days) return taggedOf(team);
  const now = services.clock.now();
  const audit = auditItem({
    event_type: AuditEventType.TEAM_SETTINGS_UPDATED,
    occurred_at: now.toISOString(),
    key_id: caller.id,
    team_id: team.team_id,
    actor: actorOf(caller, meta),
    changes: { disable_unused_after_days: { before, after: input.disable_unused_after_days } },
  });
  const outcome = await services.teams.changeSettings(team.team_id, input.disable_unused_after_days, revisionOf(team), now, audit);
  if (!outcome.committed) {
    const current = await ownTeam(services, caller, input.team_id);
    assertPrecondition(precondition, { revision: revisionOf(current) }, 'team settings');
    throw new ApiError(ErrorCode.CONFLICT, 'The team’s settings changed while this request was being processed; read them and retry.');
  }
  return taggedOf({
    ...team,
    disable_unused_after_days: input.disable_unused_after_days,
    settings_revision: revisionOf(team) + 1,
    settings_updated_at: now.toISOString(),
  });
}
