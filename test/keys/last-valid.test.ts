/**
 * `last_valid_at` on the usage item (lambda/store/last-valid.ts): the last
 * use admitted as VALID. A write that a fresh process sends under the rate
 * window's upper bound, and that the window's estimate then refuses, gives
 * its slot back and puts `last_valid_at` back as it was: the refused use is
 * recorded (`last_used_at`, `total_requests`) but never as VALID.
 */
import { makeHandler } from '../../lambda/routes/verify-api-key/handler';
import { call, createKey, newTeam } from '../support/api';
import { installManualClock, restoreSystemClock } from '../support/keys';
import { servicesWith } from '../support/services';
import { usageItem } from '../support/store';
import { callVerify } from '../verify/helpers';
import { NEVER_VALID } from '../../lambda/store/usage-writes';

afterEach(() => restoreSystemClock());

/** A verify handler of a process of its own (its own memory of ended windows), leases off. */
const freshProcess = () => {
  const services = servicesWith({ usageLeases: { enabled: false } });
  return makeHandler(() => services);
};

describe('last_valid_at', () => {
  it('a use the upper bound lets through and the estimate refuses leaves it as it was (and a later VALID use moves it)', async () => {
    // Arrange: rate_limit 2, both slots used in the last second of an hour
    const clock = installManualClock(Date.parse('2026-12-01T10:59:58Z'));
    const team = await newTeam();
    const key = await createKey(team, { rate_limit: 2 });
    const first = freshProcess();
    expect((await callVerify({ key: key.key }, { handler: first })).body.code).toBe('VALID');
    clock.set(Date.parse('2026-12-01T10:59:59Z'));
    expect((await callVerify({ key: key.key }, { handler: first })).body.code).toBe('VALID');
    const before = await usageItem(key.id);

    // Act: a second after the hour, from a process that has not seen the last hour's count
    clock.set(Date.parse('2026-12-01T11:00:00.500Z'));
    const refused = await callVerify({ key: key.key }, { handler: freshProcess() });
    const after = await usageItem(key.id);
    clock.set(Date.parse('2026-12-01T11:59:30Z'));
    const admitted = await callVerify({ key: key.key }, { handler: freshProcess() });
    const later = await usageItem(key.id);

    // Assess
    expect(before?.last_valid_at).toBe('2026-12-01T10:59:59.000Z');
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(after).toMatchObject({ last_used_at: '2026-12-01T11:00:00.500Z', last_valid_at: '2026-12-01T10:59:59.000Z', total_requests: 3 });
    expect(admitted.body.code).toBe('VALID');
    expect(later).toMatchObject({ last_used_at: '2026-12-01T11:59:30.000Z', last_valid_at: '2026-12-01T11:59:30.000Z', total_requests: 4 });
  });

  it('a key with no VALID use before: the refused use leaves it at the epoch, none (the slot was taken by a management request refused for its scope)', async () => {
    // Arrange: rate_limit 1, its slot taken at 12:59:59 by a request the key may not make (a use, never a VALID one)
    const clock = installManualClock(Date.parse('2026-12-01T12:59:59Z'));
    const team = await newTeam();
    const reader = await createKey(team, { scopes: ['enc.*:read'], rate_limit: 1 });
    expect((await call('list-api-keys', { key: reader.key, query: { team_id: team.teamId } })).status).toBe(403);

    // Act: the next second, a fresh process verifies it: let through by the upper bound, refused by the estimate
    clock.set(Date.parse('2026-12-01T13:00:00.200Z'));
    const refused = await callVerify({ key: reader.key }, { handler: freshProcess() });

    // Assess
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(await usageItem(reader.id)).toMatchObject({ last_used_at: '2026-12-01T13:00:00.200Z', last_valid_at: NEVER_VALID, total_requests: 2 });
  });
});
