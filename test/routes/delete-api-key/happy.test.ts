/**
 * Delete, happy paths: the response contract, the hash-free tombstone with
 * its 90-day TTL, every value revoked at once (an in-transition old value
 * included), usage kept, and the deletion audit record.
 */
import { MS_PER_DAY, epochSeconds } from '../../../lambda/platform/clock';
import { actorOf, call, createKey, newTeam } from '../../support/api';
import { MANAGER_SCOPES, checkValue, expectStatus, keysOf, manualClockPerTest, selfManagingKey, storedKeyState } from '../../support/keys';
import { keyItem, lookupItemsForKey, usageItem, auditRecordsOfType } from '../../support/store';
import { smokeTest } from '../../support/route-fixtures';

const RESPONSE_FIELDS = ['audit_info', 'deleted_key', 'message', 'success'];
const DELETED_KEY_FIELDS = ['created_at', 'deleted_at', 'deleted_by', 'environment', 'id', 'key_type', 'last_four', 'name'];
const AUDIT_INFO_FIELDS = ['last_used_at', 'reason', 'total_requests', 'usage_last_30_days'];

const clock = manualClockPerTest();

describe('delete: response', () => {
  it('answers 200 with exactly the spec fields', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { name: 'Old integration', type: 'pk', environment: 'test' });
    const createdAt = clock().now().toISOString();
    clock().advance(60_000);

    // Act
    const response = await call('delete-api-key', {
      key: team.key,
      body: { key_id: target.id, confirm_deletion: true, reason: 'Integration retired' },
    });

    // Assess
    expectStatus(response, 200);
    const body = response.body;
    expect(keysOf(body)).toEqual(RESPONSE_FIELDS);
    expect(keysOf(body.deleted_key)).toEqual(DELETED_KEY_FIELDS);
    expect(keysOf(body.audit_info)).toEqual(AUDIT_INFO_FIELDS);
    expect(body).toEqual({
      success: true,
      message: expect.any(String),
      deleted_key: {
        id: target.id,
        name: 'Old integration',
        key_type: 'pk',
        environment: 'test',
        last_four: target.key.slice(-4),
        created_at: createdAt,
        deleted_at: clock().now().toISOString(),
        deleted_by: team.userId,
      },
      audit_info: { reason: 'Integration retired', last_used_at: null, total_requests: 0, usage_last_30_days: 0 },
    });
    expect(body.message.length).toBeGreaterThan(0);
  });

  it('after a regeneration, deleted_key.last_four is that of the current (new) value', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });
    expectStatus(regenerated, 200);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.deleted_key.last_four).toBe(regenerated.body.new_key.slice(-4));
  });

  it('without a reason, audit_info.reason is null', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toMatchObject({ reason: null });
  });
});

describe('delete: tombstone', () => {
  it('the key item becomes a tombstone with no hash, state deleted and ttl = deleted_at + 90 days; no lookup remains', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { name: 'Reporting' });
    const before = await keyItem(target.id);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true, reason: 'rotated out' } });

    // Assess
    expectStatus(response, 200);
    const tombstone = await keyItem(target.id);
    const deletedAt = clock().now();
    expect(tombstone).toBeDefined();
    expect(Object.keys(tombstone ?? {}).filter((name) => /hash/i.test(name))).toEqual([]);
    expect(tombstone).toMatchObject({
      id: target.id,
      name: 'Reporting',
      state: 'deleted',
      is_active: false,
      deleted_at: deletedAt.toISOString(),
      deleted_by: team.userId,
      deletion_reason: 'rotated out',
      ttl: epochSeconds(new Date(deletedAt.getTime() + 90 * MS_PER_DAY)),
    });
    expect(before).toHaveProperty('current_hash');
    expect(await lookupItemsForKey(target.id)).toEqual([]);
  });

  it('deleting a key in transition removes both hashes and both lookups', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } }), 200);
    const before = await storedKeyState(target.id);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    const after = await storedKeyState(target.id);
    expect(before.lookups).toHaveLength(2);
    expect(after.lookups).toEqual([]);
    expect(after.key).not.toHaveProperty('current_hash');
    expect(after.key).not.toHaveProperty('previous_hash');
  });

  it('the usage item survives the deletion, with no ttl', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const usageBefore = await usageItem(target.id);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    const usageAfter = await usageItem(target.id);
    expect(usageAfter).toEqual(usageBefore);
    expect(usageAfter).not.toHaveProperty('ttl');
  });
});

describe('delete: revocation', () => {
  it('the value stops authenticating at once', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(await checkValue(target.key)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
  });

  it('during a transition, both the old and the new value stop authenticating at once', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 30 } });
    expectStatus(regenerated, 200);
    expect(await checkValue(target.key)).toMatchObject({ valid: true });

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(await checkValue(target.key)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    expect(await checkValue(regenerated.body.new_key)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
  });

  it('a manager key may be deleted while another manager key remains', async () => {
    // Prepare
    const team = await newTeam();
    const second = await createKey(team, { scopes: MANAGER_SCOPES });

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: second.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(await checkValue(team.key)).toMatchObject({ valid: true });
  });

  it('the bootstrap key may delete itself once another manager key exists, and is refused on its next request', async () => {
    // Prepare
    const { team, key: successor } = await selfManagingKey();

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: team.keyId, confirm_deletion: true } });
    const next = await call('delete-api-key', { key: team.key, body: { key_id: team.keyId, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expectStatus(next, 401);
    expect(await checkValue(team.key)).toMatchObject({ valid: false });
    expect(await checkValue(successor.key)).toMatchObject({ valid: true });
  });
});

describe('delete: audit record', () => {
  it('records the acting user, time, key id, name, type, reason, source IP, user agent and session', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { name: 'Partner feed', type: 'pk' });

    // Act
    const response = await call('delete-api-key', {
      key: team.key,
      body: { key_id: target.id, confirm_deletion: true, reason: 'Partner contract ended' },
      sourceIp: '198.51.100.77',
      headers: { 'User-Agent': 'admin-console/5.2' },
    });

    // Assess
    expectStatus(response, 200);
    const requestId = response.headers['X-Request-Id'];
    const deletions = await auditRecordsOfType(target.id, 'key.deleted');
    expect(deletions).toHaveLength(1);
    expect(deletions[0]).toMatchObject({
      key_id: target.id,
      team_id: team.teamId,
      occurred_at: clock().now().toISOString(),
      actor: actorOf(team, { sourceIp: '198.51.100.77', userAgent: 'admin-console/5.2', requestId }),
      key: { name: 'Partner feed', type: 'pk', environment: 'live' },
      reason: 'Partner contract ended',
      session: { key_id: team.keyId, request_id: requestId },
    });
    expect(response.body.audit_info.reason).toBe('Partner contract ended');
  });
});

// Its fixture's valid request (lambda/routes/delete-api-key/fixture.ts) answers as documented.
smokeTest('delete-api-key');
