/** Teams: a team's plan and its API Gateway usage key (`TEAM#<id>`), written by the operator's bootstrap. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TeamItem } from '../domain/model';
import { ABSENT, type StoreTables } from './transactions';
import type { OperationsOf } from '../contract/store-operations';
import { TEAM } from './entities/team';

export class TeamStore {
  constructor(private readonly tables: Pick<StoreTables, 'db' | 'keyTableName'>) {}

  /** `readTeam`: a team's item (plan and usage key), strongly consistent. */
  async getTeam(teamId: string): Promise<TeamItem | undefined> {
    const { Item } = await this.tables.db.send(new GetCommand({ TableName: this.tables.keyTableName, Key: TEAM.key(teamId), ConsistentRead: true }));
    return TEAM.read(Item);
  }

  /** `writeTeam` (operator): a team's first item; false when the team has one already. */
  async putNewTeam(team: TeamItem): Promise<boolean> {
    try {
      await this.tables.db.send(new PutCommand({ TableName: this.tables.keyTableName, Item: team, ConditionExpression: ABSENT }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
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
  putNewTeam: 'operator',
  moveTeamPlan: 'operator',
} as const satisfies OperationsOf<TeamStore>;
