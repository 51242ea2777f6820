/**
 * get-api-key-usage reports a key's daily counts and the transition split,
 * and stays readable for a deleted key.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { MS_PER_DAY } from '../../../lambda/platform/clock';
import { documentClient } from '../../../lambda/composition/dynamo';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam } from '../../support/api';
import { runCommonManagementTests } from '../../support/management-matrix';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest, useValueTimes } from '../../support/keys';
import { KEY } from '../../../lambda/store/entities/key';
import { smokeTest } from '../../support/route-fixtures';

const clock = manualClockPerTest();

describe('get-api-key-usage', () => {
  it('answers totals and the last `days` days zero-filled oldest first', async () => {
    // Prepare: 2 uses three days ago, 3 today
    const team = await newTeam();
    const created = await createKey(team);
    await useValueTimes(created.key, 2);
    const threeDaysAgo = clock().now().toISOString().slice(0, 10);
    clock().advance(3 * MS_PER_DAY);
    await useValueTimes(created.key, 3);

    // Act
    const response = await call('get-api-key-usage', { key: team.key, query: { key_id: created.id, days: '5' } });

    // Assess
    expectStatus(response, 200);
    const { data } = response.body;
    expect(data).toMatchObject({ key_id: created.id, total_requests: 5, usage_last_30_days: 5, transition: null, last_used_at: clock().now().toISOString() });
    expect(data.daily).toHaveLength(5);
    expect(data.daily.map((day: { requests: number }) => day.requests)).toEqual([0, 2, 0, 0, 3]);
    expect(data.daily[1].date).toBe(threeDaysAgo);
    expect(data.daily[4].date).toBe(clock().now().toISOString().slice(0, 10));
  });

  it('during a transition, splits uses between the old and the new value; defaults to 30 days', async () => {
    // Prepare
    const team = await newTeam();
    const created = await createKey(team);
    const rolled = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id } });
    await useValueTimes(created.key, 2);
    await useValueTimes(rolled.body.new_key, 1);

    // Act
    const response = await call('get-api-key-usage', { key: team.key, query: { key_id: created.id } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.data.daily).toHaveLength(30);
    expect(response.body.data.transition).toEqual({
      old_value_requests: 2,
      new_value_requests: 1,
      transition_ends_at: rolled.body.key_info.transition_ends_at,
    });
  });

  it('a deleted key’s usage stays readable: by its tombstone, then by the usage item’s team once the tombstone is gone (a live key only)', async () => {
    // Prepare: 3 uses, a roll, 1 use of the new value, then the delete
    const team = await newTeam();
    const created = await createKey(team);
    await useValueTimes(created.key, 3);
    const rolled = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id } });
    await useValueTimes(rolled.body.new_key, 1);
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: created.id, confirm_deletion: true } }), 200);
    const otherTeam = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const read = (key: string) => call('get-api-key-usage', { key, query: { key_id: created.id, days: '2' } });
    const figures = { key_id: created.id, deleted: true, total_requests: 4, usage_last_30_days: 4, transition: null };
    const usedIn = clock().now().toISOString().slice(0, 7);

    // Act
    const byTombstone = await read(team.key);
    clock().advance(91 * MS_PER_DAY); // the tombstone is past its TTL (DynamoDB removes it within days)
    const pastTtl = await read(team.key);
    await documentClient().send(new DeleteCommand({ TableName: config.keyTableName, Key: KEY.key(created.id) }));
    const tombstoneGone = await read(team.key);
    const refused = [await read(otherTeam.key), await read(testManager.key)];

    // Assess
    expectStatus(byTombstone, 200);
    expect(byTombstone.body.data).toMatchObject(figures);
    expect(byTombstone.body.data.monthly).toEqual([{ month: usedIn, requests: 4 }]);
    expect(byTombstone.body.data.daily.map((day: { requests: number }) => day.requests)).toEqual([0, 4]);
    expectStatus(pastTtl, 200);
    expectStatus(tombstoneGone, 200);
    for (const later of [pastTtl, tombstoneGone]) {
      expect(later.body.data).toMatchObject({ ...figures, usage_last_30_days: 0 });
      expect(later.body.data.monthly).toEqual(byTombstone.body.data.monthly);
    }
    expect(refused.map((response) => [response.status, response.body.error?.code])).toEqual([
      [404, 'NOT_FOUND'],
      [404, 'NOT_FOUND'],
    ]);
  });

  it('a live key’s usage says deleted: false', async () => {
    const team = await newTeam();
    const response = await call('get-api-key-usage', { key: team.key, query: { key_id: team.keyId } });
    expectStatus(response, 200);
    expect(response.body.data).toMatchObject({ key_id: team.keyId, deleted: false });
  });

  it.each(['0', '91', 'x', '1.5'])('days=%s → 400 naming days', async (days) => {
    const team = await newTeam();
    const response = await call('get-api-key-usage', { key: team.key, query: { key_id: team.keyId, days } });
    expectStatus(response, 400);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain('days');
  });
});

runCommonManagementTests({ endpoint: 'get-api-key-usage', requestFor: (keyId) => ({ query: { key_id: keyId } }), success: 200, readsDeletedKeys: true });

// Its fixture's valid request (lambda/routes/get-api-key-usage/fixture.ts) answers as documented.
smokeTest('get-api-key-usage');
