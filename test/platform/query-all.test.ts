/**
 * queryAll against DynamoDB Local: every page by default, and with `enough`
 * it stops after the first page that makes the items enough (the survivor
 * search of a manager removing itself reads no more of its team than that).
 */
import { TEAM_INDEX } from '../../lambda/contract/tables';
import { config } from '../../lambda/composition/config';
import { documentClient } from '../../lambda/composition/dynamo';
import { queryAll } from '../../lambda/store/query-all';
import { createKey, newTeam } from '../support/api';
import { KEY, teamKeysPartition } from '../../lambda/store/entities/key';

describe('queryAll', () => {
  it('reads every page, or stops at the first page that is enough', async () => {
    // Prepare: a team of 5 keys, read one per page
    const team = await newTeam();
    for (let i = 0; i < 4; i++) await createKey(team, { name: `k${i}` });
    const input = {
      TableName: config.keyTableName,
      IndexName: TEAM_INDEX,
      KeyConditionExpression: 'gsi1pk = :team',
      ExpressionAttributeValues: { ':team': teamKeysPartition(team.teamId) },
      ScanIndexForward: false,
      Limit: 1,
    };

    // Act
    const all = await queryAll(documentClient(), input, KEY.readAll);
    const pagesSeen: number[] = [];
    const two = await queryAll(documentClient(), input, KEY.readAll, (items) => {
      pagesSeen.push(items.length);
      return items.length >= 2;
    });

    // Assess
    expect(all).toHaveLength(5);
    expect(two.map((item) => item.id)).toEqual(all.slice(0, 2).map((item) => item.id));
    expect(pagesSeen).toEqual([1, 2]);
  });
});
