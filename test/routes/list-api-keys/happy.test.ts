/**
 * list-api-keys pages a team's keys newest first with an opaque cursor that
 * visits every key exactly once, filters by environment, type and state, and
 * examines at most 1,000 keys a request.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { documentClient } from '../../../lambda/composition/dynamo';
import { keyItem } from '../../support/store';
import { MAX_INDEX_PAGES } from '../../../lambda/use-cases/read-keys';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam, type TestTeam } from '../../support/api';
import { KEY_RESOURCE_FIELDS as RESOURCE_FIELDS, MANAGER_SCOPES, expectStatus, manualClockPerTest } from '../../support/keys';
import { KEY } from '../../../lambda/store/entities/key';
import { smokeTest } from '../../support/route-fixtures';

const clock = manualClockPerTest();

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

// Its fixture's valid request (lambda/routes/list-api-keys/fixture.ts) answers as documented.
smokeTest('list-api-keys');
