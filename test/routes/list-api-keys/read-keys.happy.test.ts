/**
 * Reading keys: get and list answer the key resource (never a value or a
 * hash), list pages newest first with an opaque cursor that visits every
 * key exactly once, filters by environment, type and state, and the usage
 * route reports daily counts and the transition split.
 */
import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { MS_PER_DAY } from '../../../lambda/platform/clock';
import { documentClient } from '../../../lambda/composition/dynamo';
import { keyItem } from '../../support/store';
import { hashKeyValue } from '../../../lambda/domain/key-values';
import { MAX_INDEX_PAGES } from '../../../lambda/use-cases/read-keys';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam, type TestTeam } from '../../support/api';
import { runCommonManagementTests } from '../../support/management-matrix';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest, useValueTimes } from '../../support/keys';
import { KEY } from '../../../lambda/store/entities/key';

const clock = manualClockPerTest();

const RESOURCE_FIELDS = [
  'created_at',
  'created_by',
  'description',
  'domains',
  'environment',
  'expires_at',
  'id',
  'ip_whitelist',
  'is_active',
  'key_prefix',
  'last_four',
  'last_used_at',
  'name',
  'on_leak',
  'rate_limit',
  'scopes',
  'state',
  'team_id',
  'transition_ends_at',
  'type',
  'updated_at',
].sort();

/** Every key of a listing, walking the cursor to the end. */
async function walk(team: TestTeam, query: Record<string, string>, onPage?: (page: number) => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const response = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, ...query, ...(cursor ? { cursor } : {}) } });
    expectStatus(response, 200);
    ids.push(...response.body.data.map((key: { id: string }) => key.id));
    cursor = response.body.meta.next_cursor ?? undefined;
    if (!cursor) return ids;
    await onPage?.(page);
  }
  throw new Error('the cursor never ended');
}

describe('get-api-key', () => {
  it('answers 200 with the key resource: every create field but the value, plus state, transition end, update time', async () => {
    // Prepare
    const team = await newTeam();
    const created = await createKey(team, { name: 'Reader', description: 'reads', rate_limit: 50 });
    await useValueTimes(created.key, 2);

    // Act
    const response = await call('get-api-key', { key: team.key, query: { key_id: created.id } });

    // Assess
    expectStatus(response, 200);
    expect(Object.keys(response.body.data).sort()).toEqual(RESOURCE_FIELDS);
    expect(response.body.data).toMatchObject({
      ...Object.fromEntries(Object.entries(created.data).filter(([field]) => field !== 'key' && field !== 'last_used_at')),
      state: 'active',
      transition_ends_at: null,
      updated_at: created.data.created_at,
      last_used_at: clock().now().toISOString(),
    });
    expect(Object.keys(response.body.meta).sort()).toEqual(['request_id', 'timestamp']);
    const text = JSON.stringify(response.body);
    expect({ value: text.includes(created.key), hash: text.includes(hashKeyValue(created.key, config.pepper)) }).toEqual({ value: false, hash: false });
    expect(response.headers['Cache-Control']).toBe('no-store');
  });

  it('shows a deleted key’s tombstone while it lasts (state deleted, deleted_at, never a value), then 404; the tombstone is unchanged by the read', async () => {
    // Prepare
    const team = await newTeam();
    const created = await createKey(team, { name: 'Gone soon' });
    await useValueTimes(created.key, 2);
    const deleted = await call('delete-api-key', { key: team.key, body: { key_id: created.id, confirm_deletion: true } });
    expectStatus(deleted, 200);
    const tombstoneBefore = await keyItem(created.id);

    // Act
    const during = await call('get-api-key', { key: team.key, query: { key_id: created.id } });
    const listed = (await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, state: 'deleted' } })).body.data[0];
    const tombstoneAfter = await keyItem(created.id);
    clock().advance(90 * MS_PER_DAY); // the tombstone's TTL: gone for the service, whether or not DynamoDB has removed it yet
    const after = await call('get-api-key', { key: team.key, query: { key_id: created.id } });

    // Assess
    expectStatus(during, 200);
    expect(Object.keys(during.body.data).sort()).toEqual([...RESOURCE_FIELDS, 'deleted_at'].sort());
    expect(during.body.data).toMatchObject({
      id: created.id,
      name: 'Gone soon',
      state: 'deleted',
      is_active: false,
      deleted_at: deleted.body.deleted_key.deleted_at,
    });
    expect(during.body.data).toEqual(listed);
    expect(JSON.stringify(during.body)).not.toContain(created.key);
    expect(tombstoneAfter).toEqual(tombstoneBefore);
    expect([after.status, after.body.error?.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('shows a transition while it lasts, with its end', async () => {
    // Prepare
    const team = await newTeam();
    const created = await createKey(team);
    const rolled = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, grace_period_days: 2 } });
    expectStatus(rolled, 200);

    // Act
    const during = await call('get-api-key', { key: team.key, query: { key_id: created.id } });
    clock().advance(2 * MS_PER_DAY);
    const after = await call('get-api-key', { key: team.key, query: { key_id: created.id } });

    // Assess
    expect(during.body.data).toMatchObject({
      state: 'in_transition',
      transition_ends_at: rolled.body.key_info.transition_ends_at,
      last_four: rolled.body.key_info.last_four,
    });
    expect(after.body.data).toMatchObject({ state: 'active', transition_ends_at: null });
  });
});

describe('list-api-keys', () => {
  it('answers the team’s keys newest first, with next_cursor null on the last page', async () => {
    // Prepare
    const team = await newTeam();
    const first = await createKey(team, { name: 'first' });
    const second = await createKey(team, { name: 'second' });

    // Act
    const response = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.data.map((key: { id: string }) => key.id)).toEqual([second.id, first.id, team.keyId]);
    expect(Object.keys(response.body.data[0]).sort()).toEqual(RESOURCE_FIELDS);
    expect(response.body.meta).toMatchObject({ next_cursor: null, request_id: expect.any(String), timestamp: expect.any(String) });
  });

  it('a filter that skips many keys: one request examines at most 1,000 (a short page, even an empty one, with a cursor); the walk finds every match once', async () => {
    // Prepare: 1,050 disabled keys, written straight into the table, newer than the team's two active keys
    const team = await newTeam();
    const needle = await createKey(team, { name: 'Needle' });
    const template = await keyItem(needle.id);
    clock().advance(1000);
    const newId = monotonicFactory();
    const skipped = Array.from({ length: MAX_INDEX_PAGES * 100 + 50 }, () => {
      const id = newId(clock().now().getTime());
      return { ...template, ...KEY.key(id), gsi1sk: `KEY#${id}`, id, name: 'Off', is_active: false };
    });
    for (let i = 0; i < skipped.length; i += 25) {
      const batch = skipped.slice(i, i + 25).map((item) => ({ PutRequest: { Item: item } }));
      await documentClient().send(new BatchWriteCommand({ RequestItems: { [config.keyTableName]: batch } }));
    }

    // Act
    const first = await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, state: 'active', limit: '5' } });
    const walked = await walk(team, { state: 'active', limit: '5' });
    const disabled = await walk(team, { state: 'disabled', limit: '100' });

    // Assess
    expectStatus(first, 200);
    expect(first.body.data).toEqual([]);
    expect(first.body.meta.next_cursor).toEqual(expect.any(String));
    expect(walked).toEqual([needle.id, team.keyId]);
    expect(disabled).toHaveLength(skipped.length);
    expect(new Set(disabled).size).toBe(skipped.length);
  });

  it('walking the cursor visits every key exactly once, even while keys are created meanwhile', async () => {
    // Prepare: 11 keys, pages of 3
    const team = await newTeam();
    const existing = [team.keyId];
    for (let i = 0; i < 10; i++) existing.push((await createKey(team, { name: `k${i}` })).id);

    // Act: a new key is created after every page
    const created: string[] = [];
    const seen = await walk(team, { limit: '3' }, async () => {
      created.push((await createKey(team, { name: 'meanwhile' })).id);
    });

    // Assess: the keys that existed at the start, each once, newest first; later ones are newer than the cursor
    const fromStart = seen.filter((id) => existing.includes(id));
    expect(fromStart).toEqual([...existing].reverse());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => created.includes(id))).toEqual([]);
  });

  it('filters by environment, type and state; deleted tombstones only when asked for', async () => {
    // Prepare
    const team = await newTeam();
    const pk = await createKey(team, { type: 'pk', name: 'public' });
    const testKey = await createKey(team, { environment: 'test', name: 'test' });
    const disabled = await createKey(team, { name: 'paused' });
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: disabled.id, is_active: false } }), 200);
    const gone = await createKey(team, { name: 'gone' });
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: gone.id, confirm_deletion: true } }), 200);
    const rolling = await createKey(team, { name: 'rolling' });
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: rolling.id } }), 200);
    const expiring = await createKey(team, { name: 'expiring', expires_at: new Date(clock().now().getTime() + 60_000).toISOString() });
    clock().advance(120_000);

    // Act
    const ids = async (query: Record<string, string>) => (await walk(team, query)).sort();

    // Assess
    expect(await ids({})).toEqual([team.keyId, pk.id, testKey.id, disabled.id, rolling.id, expiring.id].sort());
    expect(await ids({ type: 'pk' })).toEqual([pk.id]);
    expect(await ids({ environment: 'test' })).toEqual([testKey.id]);
    expect(await ids({ state: 'disabled' })).toEqual([disabled.id]);
    expect(await ids({ state: 'deleted' })).toEqual([gone.id]);
    expect(await ids({ state: 'in_transition' })).toEqual([rolling.id]);
    expect(await ids({ state: 'expired' })).toEqual([expiring.id]);
    const tombstone = (await call('list-api-keys', { key: team.key, query: { team_id: team.teamId, state: 'deleted' } })).body.data[0];
    expect(tombstone).toMatchObject({ id: gone.id, state: 'deleted', deleted_at: expect.any(String), is_active: false });
  });

  it('a test key lists the test keys of its team only, without asking', async () => {
    // Prepare
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const testKey = await createKey(team, { environment: 'test' });

    // Act
    const response = await call('list-api-keys', { key: testManager.key, query: { team_id: team.teamId } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.data.map((key: { id: string }) => key.id).sort()).toEqual([testManager.id, testKey.id].sort());
  });
});

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

// A deleted key's tombstone is readable (the test above), so the matrix's deleted-key 404 does not apply.
runCommonManagementTests({ endpoint: 'get-api-key', requestFor: (keyId) => ({ query: { key_id: keyId } }), success: 200, readsDeletedKeys: true });
// A deleted key's usage stays readable (the test above), so the matrix's deleted-key 404 does not apply.
runCommonManagementTests({ endpoint: 'get-api-key-usage', requestFor: (keyId) => ({ query: { key_id: keyId } }), success: 200, readsDeletedKeys: true });
