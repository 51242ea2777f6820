/**
 * Grace modes (issue 47 point 1, docs/verification.md "Grace modes"): the
 * old value of a regeneration ends `grace_minutes` after the new value's
 * first VALID use (`first_use`), or once the new value has been used, after
 * `grace_minutes` without a use of the old one (`until_idle`);
 * `grace_period_days` stays the hard maximum. Time moves on a manual clock;
 * the old value is probed read-only (`checkKey`, which records no use, so a
 * probe never keeps the old value alive) by this process and by a fresh one
 * (another Lambda sandbox: no memory of the uses, it reads the usage item).
 */
import { checkKey, verifyKey } from '../../lambda/verification/verify';
import { expireOldValue } from '../../lambda/use-cases/expire-old-value';
import { createLocalScheduler, type LocalRevocationScheduler } from '../../local/scheduler';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { MANAGER_SCOPES, expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { authorizerWith } from '../../lambda/handlers/authorizer';
import { callAuthorizer } from '../verify/helpers';
import type { ManualClock } from '../../lambda/platform/clock';
import { servicesWith, testServices, useTestServices } from '../support/services';
import { auditRecordsOfType } from '../support/store';

const MINUTE = 60_000;
let clock: ManualClock;
let scheduler: LocalRevocationScheduler;
let schedules: Array<{ keyId: string; at: string }>;

beforeEach(() => {
  clock = installManualClock();
  schedules = [];
  scheduler = createLocalScheduler({
    clock,
    expire: (request) => expireOldValue(testServices(), { key_id: request.keyId, generation: request.generation }, 'grace-modes-test'),
  });
  const counted = {
    schedule: async (request: { keyId: string; generation: number; at: string }) => {
      schedules.push({ keyId: request.keyId, at: request.at });
      await scheduler.schedule(request);
    },
    cancel: (request: { keyId: string; generation: number }) => scheduler.cancel(request),
  };
  // One use per write (no lease): the exact case; the lease's bound has its own test below.
  useTestServices({ scheduler: counted, usageLeases: { enabled: false } });
});

afterEach(async () => {
  await scheduler.stop();
  useTestServices({});
  restoreSystemClock();
});

interface Rolled {
  team: TestTeam;
  keyId: string;
  oldValue: string;
  newValue: string;
  regeneratedAt: number;
  body: Record<string, unknown>;
}

async function rolled(body: Record<string, unknown>): Promise<Rolled> {
  const team = await newTeam();
  const key = await createKey(team, { name: 'Graceful' });
  const regeneratedAt = clock.now().getTime();
  const response = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id, ...body } });
  expectStatus(response, 200);
  return { team, keyId: key.id, oldValue: key.key, newValue: response.body.new_key as string, regeneratedAt, body: response.body };
}

/** Sets the clock `ms` after the regeneration. */
const at = (key: Rolled, ms: number) => clock.set(key.regeneratedAt + ms);
/** A real verification (a recorded use). */
const use = async (value: string) => (await verifyKey(testServices(), { value })).code;
/** A read-only check in this process, and in a fresh one. */
const probe = async (value: string) => (await checkKey(testServices(), { value })).valid;
const probeElsewhere = async (value: string) => (await checkKey(servicesWith({ usageLeases: { enabled: false } }), { value })).valid;

async function keyRead(key: Rolled): Promise<{ state: string; transition_ends_at: string | null }> {
  const read = await call('get-api-key', { key: key.team.key, query: { key_id: key.keyId } });
  expectStatus(read, 200);
  return read.body.data as { state: string; transition_ends_at: string | null };
}

describe('until_idle', () => {
  it('a client that switches at minute 3 with grace_minutes 5 sees its old value refused from minute 8, not a second before', async () => {
    // Arrange: the client sends the old value every 30 s, then the new one from minute 3.
    const key = await rolled({ grace_mode: 'until_idle', grace_minutes: 5 });
    const codes: string[] = [];
    for (let t = 0; t <= 3 * MINUTE; t += 30_000) {
      at(key, t);
      codes.push(await use(key.oldValue));
    }
    for (let t = 3 * MINUTE; t <= 7 * MINUTE; t += 30_000) {
      at(key, t);
      codes.push(await use(key.newValue));
    }

    // Act and assess: valid at 7:59, refused at 8:00, here and in a process that never saw a use.
    at(key, 8 * MINUTE - 1_000);
    expect([await probe(key.oldValue), await probeElsewhere(key.oldValue)]).toEqual([true, true]);
    expect((await keyRead(key)).transition_ends_at).toBe(new Date(key.regeneratedAt + 8 * MINUTE).toISOString());
    at(key, 8 * MINUTE);
    expect([await probe(key.oldValue), await probeElsewhere(key.oldValue)]).toEqual([false, false]);
    expect(await use(key.oldValue)).toBe('REVOKED');
    expect(codes.filter((code) => code !== 'VALID')).toEqual([]);
    // Ended: the key reads active, as after the clean-up, before the clean-up ran.
    expect(await keyRead(key)).toMatchObject({ state: 'active', transition_ends_at: null });
  });

  it('a later use of the old value moves its end: never before its last use + grace_minutes', async () => {
    // Arrange: the new value is used at minute 1; a forgotten server keeps the old value until minute 6.
    const key = await rolled({ grace_mode: 'until_idle', grace_minutes: 5 });
    at(key, MINUTE);
    expect(await use(key.newValue)).toBe('VALID');
    for (let t = 2 * MINUTE; t <= 6 * MINUTE; t += MINUTE) {
      at(key, t);
      expect(await use(key.oldValue)).toBe('VALID');
    }

    // Act and assess
    at(key, 11 * MINUTE - 1);
    expect(await probeElsewhere(key.oldValue)).toBe(true);
    at(key, 11 * MINUTE);
    expect(await probeElsewhere(key.oldValue)).toBe(false);
  });

  it('a client that keeps sending the old value keeps it until the hard maximum, then loses it (reason deadline)', async () => {
    // Arrange: grace_period_days 1, grace_minutes 60; the new value is used once at minute 1.
    const key = await rolled({ grace_mode: 'until_idle', grace_minutes: 60, grace_period_days: 1 });
    at(key, MINUTE);
    expect(await use(key.newValue)).toBe('VALID');

    // Act: the old value every 50 minutes for a day.
    const codes: string[] = [];
    for (let t = 50 * MINUTE; t < 24 * 60 * MINUTE; t += 50 * MINUTE) {
      at(key, t);
      codes.push(await use(key.oldValue));
      await scheduler.runDue();
    }

    // Assess
    expect(codes.length).toBe(28);
    expect(codes.filter((code) => code !== 'VALID')).toEqual([]);
    at(key, 24 * 60 * MINUTE);
    expect(await use(key.oldValue)).toBe('REVOKED');
    await scheduler.runDue();
    const [expired] = await auditRecordsOfType(key.keyId, 'key.old_value_expired');
    expect(expired).toMatchObject({ reason: 'deadline', transition_ends_at: new Date(key.regeneratedAt + 24 * 60 * MINUTE).toISOString() });
    // Set once at the regeneration, then once per check (not per verification): 29 verifications, far fewer schedules.
    expect(schedules.length).toBeLessThanOrEqual(26);
  });

  it('the clean-up follows within minutes of the end, with reason idle; the key then reads active', async () => {
    // Arrange
    const key = await rolled({ grace_mode: 'until_idle', grace_minutes: 5 });
    expect(schedules).toEqual([{ keyId: key.keyId, at: new Date(key.regeneratedAt + 5 * MINUTE).toISOString() }]);
    at(key, 2 * MINUTE);
    expect(await use(key.newValue)).toBe('VALID');
    at(key, 4 * MINUTE);
    expect(await use(key.oldValue)).toBe('VALID');

    // Act: the first check (minute 5) finds the end at minute 9 and looks again then; a minute later it is done.
    at(key, 5 * MINUTE);
    await scheduler.runDue();
    for (let t = 6 * MINUTE; t <= 10 * MINUTE; t += MINUTE) {
      at(key, t);
      await scheduler.runDue();
    }

    // Assess
    const expired = await auditRecordsOfType(key.keyId, 'key.old_value_expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]).toMatchObject({ reason: 'idle', transition_ends_at: new Date(key.regeneratedAt + 9 * MINUTE).toISOString() });
    expect(Date.parse(expired[0].occurred_at as string) - (key.regeneratedAt + 9 * MINUTE)).toBeLessThanOrEqual(5 * MINUTE);
    expect(await keyRead(key)).toMatchObject({ state: 'active', transition_ends_at: null });
    expect(await use(key.oldValue)).not.toBe('VALID');
  });
});

describe('every surface ends the old value at the same second', () => {
  it('the platform authorizer and management authentication allow the old value at 7:59 and refuse it exactly grace_minutes after that last use', async () => {
    // Arrange: a manager key of its team, rolled under until_idle (grace_minutes 5) by another manager; the new value used at minute 3.
    const team = await newTeam();
    const manager = await createKey(team, { scopes: MANAGER_SCOPES });
    const regeneratedAt = clock.now().getTime();
    const roll = await call('regenerate-api-key', { key: team.key, body: { key_id: manager.id, grace_mode: 'until_idle', grace_minutes: 5 } });
    expectStatus(roll, 200);
    clock.set(regeneratedAt + 3 * MINUTE);
    expectStatus(await call('list-api-keys', { key: roll.body.new_key as string, query: { team_id: team.teamId } }), 200);
    const authorizer = authorizerWith(() => [], testServices);
    const tryAll = async () => ({
      authorizer: (await callAuthorizer(authorizer, { headers: { Authorization: `Bearer ${manager.key}` } })).result ? 'Allow' : 'refused',
      management: (await call('list-api-keys', { key: manager.key, query: { team_id: team.teamId } })).status,
    });

    // Act: each surface is asked once at 7:59 (a use: the old value's end moves to 12:59), then at 12:59 exactly (its end).
    clock.set(regeneratedAt + 8 * MINUTE - 1_000);
    const before = await tryAll();
    clock.set(regeneratedAt + 13 * MINUTE - 1_000);
    const after = await tryAll();

    // Assess
    expect(before).toEqual({ authorizer: 'Allow', management: 200 });
    expect(after).toEqual({ authorizer: 'refused', management: 401 });
  });
});

describe('first_use', () => {
  it('the old value ends grace_minutes after the new value’s first VALID use, whatever the old value does meanwhile', async () => {
    // Arrange
    const key = await rolled({ grace_mode: 'first_use', grace_minutes: 5 });
    const hardEnd = key.body.key_info as { transition_ends_at: string };
    expect((await keyRead(key)).transition_ends_at).toBe(hardEnd.transition_ends_at);
    at(key, 3 * MINUTE);
    expect(await use(key.newValue)).toBe('VALID');
    at(key, 4 * MINUTE);
    expect(await use(key.newValue)).toBe('VALID');

    // Act: the old value is still used at minute 7.
    at(key, 7 * MINUTE);
    expect(await use(key.oldValue)).toBe('VALID');

    // Assess: the read shows the decided end; refused from minute 8 on every process, by the clock.
    expect((await keyRead(key)).transition_ends_at).toBe(new Date(key.regeneratedAt + 8 * MINUTE).toISOString());
    at(key, 8 * MINUTE - 1_000);
    expect(await probeElsewhere(key.oldValue)).toBe(true);
    at(key, 8 * MINUTE);
    expect([await probe(key.oldValue), await probeElsewhere(key.oldValue)]).toEqual([false, false]);
    expect(await use(key.oldValue)).toBe('REVOKED');
    await scheduler.runDue();
    const [expired] = await auditRecordsOfType(key.keyId, 'key.old_value_expired');
    expect(expired).toMatchObject({ reason: 'first_use', transition_ends_at: new Date(key.regeneratedAt + 8 * MINUTE).toISOString() });
  });

  it('a new value never used leaves the old value to the hard maximum', async () => {
    // Arrange
    const key = await rolled({ grace_mode: 'first_use', grace_minutes: 1, grace_period_days: 1 });

    // Act
    at(key, 24 * 60 * MINUTE - 1);
    const before = await use(key.oldValue);
    at(key, 24 * 60 * MINUTE);

    // Assess
    expect(before).toBe('VALID');
    expect(await use(key.oldValue)).toBe('REVOKED');
  });
});

describe('a client that switches anywhere inside the window', () => {
  it.each([
    ['until_idle', 0],
    ['until_idle', 1.5],
    ['until_idle', 4.5],
    ['first_use', 0.5],
    ['first_use', 4],
  ])('%s, switching at minute %d: 0 failed calls', async (mode, switchAt) => {
    // Arrange: grace_minutes 2; one call every 20 s for 8 minutes.
    const key = await rolled({ grace_mode: mode, grace_minutes: 2 });
    const codes: string[] = [];

    // Act
    for (let t = 0; t <= 8 * MINUTE; t += 20_000) {
      at(key, t);
      codes.push(await use(t < switchAt * MINUTE ? key.oldValue : key.newValue));
      await scheduler.runDue();
    }

    // Assess
    expect(codes.filter((code) => code !== 'VALID')).toEqual([]);
  });
});

describe('hot keys: a leased old value ends up to the lease’s flush interval late, never early', () => {
  it('another process judges the idle end from the usage item, plus the flush interval', async () => {
    // Arrange: this process leases (flush within 2 s); the new value used at minute 0, the old at minute 1.
    const flushAfterMs = 2_000;
    useTestServices({ usageLeases: { enabled: true, flushAfterMs } });
    const key = await rolled({ grace_mode: 'until_idle', grace_minutes: 1 });
    expect(await use(key.newValue)).toBe('VALID');
    at(key, MINUTE);
    for (let i = 0; i < 20; i++) expect(await use(key.oldValue)).toBe('VALID');
    await testServices().usage.flushPending();
    const elsewhere = servicesWith({ usageLeases: { enabled: true, flushAfterMs } });

    // Act and assess: the end is minute 2; a leasing process refuses from minute 2 + 2 s at the latest.
    at(key, 2 * MINUTE - 1);
    expect((await checkKey(elsewhere, { value: key.oldValue })).valid).toBe(true);
    at(key, 2 * MINUTE + flushAfterMs - 1);
    expect((await checkKey(elsewhere, { value: key.oldValue })).valid).toBe(true);
    at(key, 2 * MINUTE + flushAfterMs);
    expect((await checkKey(elsewhere, { value: key.oldValue })).valid).toBe(false);
    expect((await checkKey(testServices(), { value: key.oldValue })).valid).toBe(false);
  });
});

describe('the regenerate request', () => {
  it('names the mode in its answer only when asked; the seed request answers as before', async () => {
    // Arrange and act
    const plain = await rolled({ grace_period_days: 3 });
    const fixed = await rolled({ grace_mode: 'fixed' });
    const idle = await rolled({ grace_mode: 'until_idle' });

    // Assess
    expect(Object.keys(plain.body.migration_info as object)).toEqual(['old_key_expires_at', 'grace_period_days', 'both_keys_valid']);
    expect(fixed.body.migration_info).toMatchObject({ grace_mode: 'fixed', grace_period_days: 7 });
    expect(fixed.body.migration_info).not.toHaveProperty('grace_minutes');
    expect(idle.body.migration_info).toMatchObject({ grace_mode: 'until_idle', grace_minutes: 60, grace_period_days: 7 });
    // The hard maximum is what the answer names.
    expect((idle.body.key_info as { transition_ends_at: string }).transition_ends_at).toBe(new Date(idle.regeneratedAt + 7 * 24 * 60 * MINUTE).toISOString());
  });

  it('warns when grace_minutes is shorter than the platform stages’ authorizer cache TTL, and only then', async () => {
    // Arrange: the stack sets AUTHORIZER_CACHE_TTL_SECONDS (context authorizerCacheTtl, default 300 s).
    process.env.AUTHORIZER_CACHE_TTL_SECONDS = '300';
    try {
      // Act
      const short = await rolled({ grace_mode: 'until_idle', grace_minutes: 1 });
      const long = await rolled({ grace_mode: 'first_use', grace_minutes: 5 });
      const fixed = await rolled({ grace_period_days: 2 });

      // Assess
      expect((short.body.migration_info as { warnings?: string[] }).warnings).toEqual([
        "The platform stages' authorizer cache TTL (300 s) is longer than grace_minutes (1 min): uses answered from the cache are not seen, and a cached old value stays allowed until its entry expires.",
      ]);
      expect(long.body.migration_info).not.toHaveProperty('warnings');
      expect(fixed.body.migration_info).not.toHaveProperty('warnings');
    } finally {
      delete process.env.AUTHORIZER_CACHE_TTL_SECONDS;
    }
  });

  it.each([
    [{ revoke_immediately: true, grace_mode: 'until_idle' }, 'grace_mode'],
    [{ revoke_immediately: true, grace_mode: 'fixed' }, 'grace_mode'],
    [{ grace_minutes: 5 }, 'grace_minutes'],
    [{ grace_mode: 'fixed', grace_minutes: 5 }, 'grace_minutes'],
    [{ grace_mode: 'first_use', grace_minutes: 0 }, 'grace_minutes'],
    [{ grace_mode: 'first_use', grace_minutes: 10_081 }, 'grace_minutes'],
    [{ grace_mode: 'until_idle', grace_minutes: 1.5 }, 'grace_minutes'],
    [{ grace_mode: 'sometimes' }, 'grace_mode'],
  ])('%j → 400 naming %s, nothing changed', async (body, field) => {
    // Arrange
    const team = await newTeam();
    const key = await createKey(team);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id, ...body } });

    // Assess
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain(field);
    expect(await use(key.key)).toBe('VALID');
  });
});
