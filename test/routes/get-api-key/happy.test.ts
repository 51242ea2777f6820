/**
 * get-api-key answers the key resource (never a value or a hash): every create
 * field but the value, its state and transition end; a deleted key's
 * tombstone while it lasts, then 404.
 */
import { MS_PER_DAY } from '../../../lambda/platform/clock';
import { keyItem } from '../../support/store';
import { hashKeyValue } from '../../../lambda/domain/key-values';
import { config } from '../../../lambda/composition/config';
import { call, createKey, newTeam } from '../../support/api';
import { runCommonManagementTests } from '../../support/management-matrix';
import { KEY_RESOURCE_FIELDS as RESOURCE_FIELDS, expectStatus, manualClockPerTest, useValueTimes } from '../../support/keys';
import { smokeTest } from '../../support/route-fixtures';

const clock = manualClockPerTest();

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

runCommonManagementTests({ endpoint: 'get-api-key', requestFor: (keyId) => ({ query: { key_id: keyId } }), success: 200, readsDeletedKeys: true });

// Its fixture's valid request (lambda/routes/get-api-key/fixture.ts) answers as documented.
smokeTest('get-api-key');
