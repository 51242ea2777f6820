/** Teams: a team's plan and its API Gateway usage key (`TEAM#<id>`), written by the operator's bootstrap. */
import { conditionHeld } from './condition-held';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TeamItem } from '../domain/model';
import type { AuditRecord } from '../domain/audit-events';
import { ABSENT, Transactions, type StoreTables, type WriteOutcome } from './transactions';
import type { OperationsOf } from '../contract/store-operations';
import { TEAM, UNUSED_POLICY_PARTITION } from './entities/team';
import { teamIndexPartition } from './query-all';

export class TeamStore {
  constructor(private readonly tables: StoreTables) {}

  /** `readTeam`: a team's item (plan and usage key), strongly consistent. */
  async getTeam(teamId: string): Promise<TeamItem | undefined> {
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: TEAM.key(teamId), ConsistentRead: true }));
    return TEAM.read(Item);
  }

  /**
   * `changeTeamSettings`: sets the team's `disable_unused_after_days` if its
   * settings are still at `revision` (compare-and-set), puts it on (or takes
   * it off) the team index's policy partition, and writes the audit record,
   * in one transaction; not committed when the revision moved or the team is gone.
   */
  async changeSettings(teamId: string, days: number | null, revision: number, at: Date, audit: AuditRecord): Promise<WriteOutcome> {
    const values: Record<string, unknown> = { ':days': days, ':at': at.toISOString(), ':next': revision + 1 };
    const index = days === null ? ' REMOVE gsi1pk, gsi1sk' : ', gsi1pk = :policy, gsi1sk = :team';
    if (days !== null) Object.assign(values, { ':policy': UNUSED_POLICY_PARTITION, ':team': `TEAM#${teamId}` });
    if (revision > 0) values[':revision'] = revision;
    const transactions = new Transactions(this.tables);
    return transactions.transact([
      {
        Update: {
          TableName: this.tables.keyTableName,
          Key: TEAM.key(teamId),
          UpdateExpression: `SET disable_unused_after_days = :days, settings_revision = :next, settings_updated_at = :at${index}`,
          ConditionExpression: `attribute_exists(pk) AND ${revision > 0 ? 'settings_revision = :revision' : 'attribute_not_exists(settings_revision)'}`,
          ExpressionAttributeValues: values,
        },
      },
      transactions.putAudit(audit),
    ]);
  }

  /** `listUnusedPolicies`: the teams with a `disable_unused_after_days` policy (the team index is eventually consistent). */
  async teamsWithUnusedPolicy(): Promise<TeamItem[]> {
    return teamIndexPartition(this.tables, UNUSED_POLICY_PARTITION, TEAM.readAll);
  }

  /** `writeTeam` (operator): a team's first item; false when the team has one already. */
  async putNewTeam(team: TeamItem): Promise<boolean> {
    return conditionHeld(this.tables.db.send(new PutCommand({ TableName: this.tables.keyTableName, Item: team, ConditionExpression: ABSENT })));
  }

  /** `writeTeam` (operator): moves a team to another plan, if it is still on `from`. */
  async moveTeamPlan(teamId: string, from: string, to: string, at: Date): Promise<void> {
    await this.tables.db.send(
      new UpdateCommand({
        TableName: this.tables.keyTableName,
        Key: TEAM.key(teamId),
        UpdateExpression: 'SET #plan = :to, updated_at = :at',
        ConditionExpression: '#plan = :from',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':to': to, ':from': from, ':at': at.toISOString() },
      }),
    );
  }
}

/** Each public method of TeamStore and the declared storage operation it is part of (lambda/contract/store-operations.ts). */
export const TEAM_STORE_OPERATIONS = {
  getTeam: 'readTeam',
  changeSettings: 'changeTeamSettings',
  teamsWithUnusedPolicy: 'listUnusedPolicies',
  putNewTeam: 'operator',
  moveTeamPlan: 'operator',
} as const satisfies OperationsOf<TeamStore>;
