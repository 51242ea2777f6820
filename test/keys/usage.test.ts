/**
 * Usage figures are real: every authenticated use updates the key's usage
 * item (total, last use, per-day counts, old/new split during a transition),
 * the figures the delete response and the audit trail report are the ones
 * produced, and usage outlives the key.
 */
import { MS_PER_DAY } from '../../lambda/platform/clock';
import { dayOf } from '../../lambda/domain/usage-figures';
import { call, createKey, newTeam } from '../support/api';
import { MANAGER_SCOPES, expectStatus, manualClockPerTest, useValue, useValueTimes } from '../support/keys';
import { auditRecordsOf, transitionsOf, usageItem } from '../support/store';

const clock = manualClockPerTest();

describe('usage: recording', () => {
  it('every verified use updates total_requests, last_used_at and the per-day count', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const firstDay = clock().now();

    // Act
    await useValueTimes(target.key, 3);
    clock().advance(MS_PER_DAY);
    clock().advance(1234);
    await useValueTimes(target.key, 2);

    // Assess
    const usage = await usageItem(target.id);
    expect(usage).toMatchObject({
      total_requests: 5,
      last_used_at: clock().now().toISOString(),
      daily: { [dayOf(firstDay)]: 3, [dayOf(clock().now())]: 2 },
    });
    expect(Object.keys(usage?.daily ?? {})).toHaveLength(2);
  });

  it('management requests count for the calling key', async () => {
    // Prepare
    const team = await newTeam();
    const caller = await createKey(team, { scopes: MANAGER_SCOPES });
    const target = await createKey(team);

    // Act
    expectStatus(await call('regenerate-api-key', { key: caller.key, body: { key_id: target.id } }), 200);
    clock().advance(5_000);
    expectStatus(await call('delete-api-key', { key: caller.key, body: { key_id: target.id, confirm_deletion: true } }), 200);

    // Assess
    expect(await usageItem(caller.id)).toMatchObject({
      total_requests: 2,
      last_used_at: clock().now().toISOString(),
      daily: { [dayOf(clock().now())]: 2 },
    });
  });

  it('a request refused before authentication (unknown value) records nothing for any key', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const before = await usageItem(target.id);

    // Act
    const result = await useValue(`${target.key.slice(0, -8)}AAAAAAAA`);

    // Assess
    expect(result).toMatchObject({ valid: false });
    expect(await usageItem(target.id)).toEqual(before);
  });

  it('usage items have no ttl: not at creation, after a regeneration, or after deletion', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const atCreation = await usageItem(target.id);

    // Act
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } }), 200);
    await useValueTimes(target.key, 1);
    const afterRegeneration = await usageItem(target.id);
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } }), 200);
    const afterDeletion = await usageItem(target.id);

    // Assess
    expect([atCreation, afterRegeneration, afterDeletion].map((item) => item !== undefined && !('ttl' in item))).toEqual([true, true, true]);
  });
});

describe('usage: transitions', () => {
  it('during a transition, uses of the old and the new value are counted apart under transitions.g<generation>', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    await useValueTimes(target.key, 1);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 2 } });
    expectStatus(regenerated, 200);

    // Act
    await useValueTimes(target.key, 2);
    await useValueTimes(regenerated.body.new_key, 3);

    // Assess
    const usage = await usageItem(target.id);
    expect(usage?.total_requests).toBe(6);
    expect(transitionsOf(usage)).toEqual({ g2: { old: 2, new: 3 } });
  });

  it('once the transition has ended, uses of the new value no longer count toward the transition', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id, grace_period_days: 1 } });
    expectStatus(regenerated, 200);
    await useValueTimes(regenerated.body.new_key, 1);
    clock().set(Date.parse(regenerated.body.key_info.transition_ends_at));

    // Act
    await useValueTimes(regenerated.body.new_key, 2);
    const oldAfterEnd = await useValue(target.key);

    // Assess
    expect(oldAfterEnd).toMatchObject({ valid: false, code: 'REVOKED' });
    const usage = await usageItem(target.id);
    expect(usage?.total_requests).toBe(3);
    expect(transitionsOf(usage)).toEqual({ g2: { old: 0, new: 1 } });
  });

  it('both values count toward the one rate limit of the key during a transition', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team, { rate_limit: 3 });
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });
    expectStatus(regenerated, 200);
    await useValueTimes(target.key, 2);
    await useValueTimes(regenerated.body.new_key, 1);

    // Act
    const overLimit = await useValue(regenerated.body.new_key);

    // Assess
    expect(overLimit).toMatchObject({ valid: false, code: 'RATE_LIMITED', keyId: target.id });
  });
});

describe('usage: figures reported on delete', () => {
  it('audit_info equals the usage actually produced: N uses → total_requests N, usage_last_30_days N, last_used_at of the last use', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    await useValueTimes(target.key, 4);
    clock().advance(3 * 60 * 60 * 1000);
    await useValueTimes(target.key, 3);
    const lastUse = clock().now().toISOString();
    clock().advance(10 * 60 * 1000);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toEqual({ reason: null, last_used_at: lastUse, total_requests: 7, usage_last_30_days: 7 });
    const deletion = (await auditRecordsOf(target.id)).find((record) => record.event_type === 'key.deleted');
    expect(deletion).toMatchObject({ usage: { total_requests: 7, usage_last_30_days: 7, last_used_at: lastUse } });
  });

  it('a key never used reports zero uses and a null last_used_at', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toMatchObject({ last_used_at: null, total_requests: 0, usage_last_30_days: 0 });
  });

  it('a key deleting itself counts that request too', async () => {
    // Prepare
    const team = await newTeam();
    const self = await createKey(team, { scopes: MANAGER_SCOPES });
    await useValueTimes(self.key, 2);
    clock().advance(1_000);

    // Act
    const response = await call('delete-api-key', { key: self.key, body: { key_id: self.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toMatchObject({
      last_used_at: clock().now().toISOString(),
      total_requests: 3,
      usage_last_30_days: 3,
    });
  });

  it('uses of both values during a transition add up in the delete figures', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    const regenerated = await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } });
    expectStatus(regenerated, 200);
    await useValueTimes(target.key, 2);
    await useValueTimes(regenerated.body.new_key, 2);

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toMatchObject({ total_requests: 4, usage_last_30_days: 4 });
  });

  it('usage survives the deletion: the usage item is still there with the same counts', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    await useValueTimes(target.key, 5);
    const before = await usageItem(target.id);

    // Act
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } }), 200);
    clock().advance(100 * MS_PER_DAY);

    // Assess
    const after = await usageItem(target.id);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ total_requests: 5 });
  });
});

describe('usage: the 30-day window', () => {
  it('on day 30 the uses of day 1 still count', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    await useValueTimes(target.key, 1); // day 1
    clock().advance(MS_PER_DAY);
    await useValueTimes(target.key, 2); // day 2
    clock().advance(28 * MS_PER_DAY); // day 30

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toMatchObject({ total_requests: 3, usage_last_30_days: 3 });
  });

  it('on day 31 the uses of day 1 no longer count, those of day 2 still do', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    await useValueTimes(target.key, 1); // day 1
    clock().advance(MS_PER_DAY);
    await useValueTimes(target.key, 2); // day 2
    const lastUse = clock().now().toISOString();
    clock().advance(29 * MS_PER_DAY); // day 31

    // Act
    const response = await call('delete-api-key', { key: team.key, body: { key_id: target.id, confirm_deletion: true } });

    // Assess
    expectStatus(response, 200);
    expect(response.body.audit_info).toEqual({ reason: null, last_used_at: lastUse, total_requests: 3, usage_last_30_days: 2 });
  });
});

describe('usage: figures recorded on regeneration', () => {
  it('the regeneration audit record carries the usage produced up to it', async () => {
    // Prepare
    const team = await newTeam();
    const target = await createKey(team);
    await useValueTimes(target.key, 3);
    const lastUse = clock().now().toISOString();
    clock().advance(60_000);

    // Act
    expectStatus(await call('regenerate-api-key', { key: team.key, body: { key_id: target.id } }), 200);

    // Assess
    const regeneration = (await auditRecordsOf(target.id)).find((record) => record.event_type === 'key.regenerated');
    expect(regeneration).toMatchObject({ usage: { total_requests: 3, usage_last_30_days: 3, last_used_at: lastUse } });
  });
});
