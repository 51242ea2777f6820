/**
 * The local runtime's scheduler end to end, with a ManualClock: the
 * endpoints schedule through it, `tick` moves time, and the expiry runs the
 * real expire service against DynamoDB Local. A restart (a new scheduler
 * re-armed from the table) loses no expiration.
 *
 * The key table is shared with other test files running at the same time, so
 * `rearmFromStore` sees their transitions too: the expiries here act only on
 * this file's keys (`ownKeysOnly`), and the others are left alone.
 */
import { captured, testObservability, testServices, useTestServices } from '../support/services';
import { MS_PER_DAY, type ManualClock } from '../../lambda/platform/clock';
import type { RevocationRequest } from '../../lambda/domain/revocation-scheduler';
import { createLocalScheduler, MAX_TIMER_DELAY_MS, type LocalRevocationScheduler } from '../../local/scheduler';
import { call, createKey, newTeam } from '../support/api';
import {
  checkValue,
  expectStatus,
  installManualClock,
  keyInTransition,
  restoreSystemClock,
  storedKeyState,
  useValueTimes,
  type KeyInTransition,
} from '../support/keys';
import { auditRecordsOfType, keyItem, lookupItemOf } from '../support/store';
import { expireOldValue } from '../../lambda/use-cases/expire-old-value';
import { documentClient } from '../../lambda/composition/dynamo';
import { config } from '../../lambda/composition/config';

const EXPIRED = 'key.old_value_expired';

let clock: ManualClock;
let schedulers: LocalRevocationScheduler[];
/** Keys made by the running test: the only ones its expiries may touch. */
const ownKeys = new Set<string>();
/** What the expiries ran for, in order. */
let expiries: RevocationRequest[];

async function ownKeysOnly(request: RevocationRequest): Promise<unknown> {
  if (!ownKeys.has(request.keyId)) return { outcome: 'not_this_test' };
  expiries.push(request);
  return expireOldValue(testServices(), { key_id: request.keyId, generation: request.generation }, 'local-scheduler-test');
}

/** A local scheduler on the manual clock, installed as the handlers' scheduler. */
function startScheduler(): LocalRevocationScheduler {
  const scheduler = createLocalScheduler({ clock, expire: ownKeysOnly });
  schedulers.push(scheduler);
  useTestServices({ scheduler: scheduler });
  return scheduler;
}

beforeEach(() => {
  clock = installManualClock();
  schedulers = [];
  expiries = [];
  ownKeys.clear();
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
});

afterEach(async () => {
  for (const scheduler of schedulers) await scheduler.stop();
  useTestServices({});
  restoreSystemClock();
  jest.restoreAllMocks();
});

function expiryRecords(keyId: string): Promise<Record<string, unknown>[]> {
  return auditRecordsOfType(keyId, EXPIRED);
}

/** A key in transition whose expiries this file's scheduler runs (the expiry runs only on a tick, after this returns). */
async function rotatedKey(graceDays = 1): Promise<KeyInTransition> {
  const key = await keyInTransition({ graceDays, name: 'Locally rotated' });
  ownKeys.add(key.keyId);
  return key;
}

function pendingFor(scheduler: LocalRevocationScheduler, keyId: string) {
  return scheduler.pending().filter((expiry) => expiry.keyId === keyId);
}

describe('local scheduler: end to end', () => {
  it('the old value works until the end, then fails; the expiry runs at the end and writes one record', async () => {
    // Prepare
    const scheduler = startScheduler();
    const key = await rotatedKey(1);
    expect(pendingFor(scheduler, key.keyId)).toEqual([{ keyId: key.keyId, generation: 2, at: key.endsAt }]);
    await useValueTimes(key.oldValue, 2);
    await useValueTimes(key.newValue, 1);

    // Act: one second before the end
    await scheduler.tick(MS_PER_DAY - 1000);

    // Assess
    expect((await checkValue(key.oldValue)).valid).toBe(true);
    expect(expiries).toEqual([]);
    expect(await expiryRecords(key.keyId)).toHaveLength(0);

    // Act: the end
    await scheduler.tick(1000);

    // Assess
    expect(clock.now().toISOString()).toBe(key.endsAt);
    expect(expiries).toEqual([{ keyId: key.keyId, generation: 2 }]);
    expect(await checkValue(key.oldValue)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    expect((await checkValue(key.newValue)).valid).toBe(true);
    expect(await lookupItemOf(key.oldValue)).toBeUndefined();
    expect(await keyItem(key.keyId)).not.toHaveProperty('previous_hash');
    const records = await expiryRecords(key.keyId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ generation: 2, transition_ends_at: key.endsAt, transition_usage: { old: 2, new: 1 } });
    expect(pendingFor(scheduler, key.keyId)).toEqual([]);

    // Act: much later, nothing runs again
    await scheduler.tick(30 * MS_PER_DAY);

    // Assess
    expect(expiries).toHaveLength(1);
    expect(await expiryRecords(key.keyId)).toHaveLength(1);
  });

  it('a delete during the transition cancels the timer', async () => {
    // Prepare
    const scheduler = startScheduler();
    const key = await rotatedKey(2);

    // Act
    expectStatus(await call('delete-api-key', { key: key.team.key, body: { key_id: key.keyId, confirm_deletion: true } }), 200);
    await scheduler.tick(3 * MS_PER_DAY);

    // Assess
    expect(pendingFor(scheduler, key.keyId)).toEqual([]);
    expect(expiries).toEqual([]);
    expect(await expiryRecords(key.keyId)).toHaveLength(0);
  });

  it('revoke_immediately arms nothing', async () => {
    // Prepare
    const scheduler = startScheduler();
    const team = await newTeam();
    const created = await createKey(team);
    ownKeys.add(created.id);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id, revoke_immediately: true } });

    // Assess
    expectStatus(response, 200);
    expect(pendingFor(scheduler, created.id)).toEqual([]);
  });

  it('a stopped scheduler refuses to schedule, so regenerate answers 503 and changes nothing', async () => {
    // Prepare
    const scheduler = startScheduler();
    await scheduler.stop();
    const team = await newTeam();
    const created = await createKey(team);
    const before = await storedKeyState(created.id);
    jest.spyOn(console, 'error').mockImplementation(() => undefined);

    // Act
    const response = await call('regenerate-api-key', { key: team.key, body: { key_id: created.id } });

    // Assess
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const after = await storedKeyState(created.id);
    expect({ key: after.key, lookups: after.lookups }).toEqual({ key: before.key, lookups: before.lookups });
  });
});

describe('local scheduler: restart', () => {
  it('restarted after the end: rearmFromStore expires the transition at once, one record', async () => {
    // Prepare: a transition armed in the first process, which stops mid-way
    const first = startScheduler();
    const key = await rotatedKey(1);
    await first.tick(MS_PER_DAY / 2);
    expect((await checkValue(key.oldValue)).valid).toBe(true);
    await first.stop();
    // While nothing runs, the end passes: the clock already refuses the old value.
    clock.advance(MS_PER_DAY);
    expect(await checkValue(key.oldValue)).toMatchObject({ valid: false, code: 'REVOKED' });
    expect(await keyItem(key.keyId)).toHaveProperty('previous_hash');

    // Act
    const second = startScheduler();
    const summary = await second.rearmFromStore({ db: documentClient(), keyTableName: config.keyTableName });

    // Assess
    expect(summary.firedAtOnce).toBeGreaterThanOrEqual(1);
    expect(expiries).toEqual([{ keyId: key.keyId, generation: 2 }]);
    expect(await keyItem(key.keyId)).not.toHaveProperty('previous_hash');
    expect(await lookupItemOf(key.oldValue)).toBeUndefined();
    expect(await expiryRecords(key.keyId)).toHaveLength(1);
    expect(pendingFor(second, key.keyId)).toEqual([]);

    // A third start finds nothing left to do for this key.
    const third = startScheduler();
    await third.rearmFromStore({ db: documentClient(), keyTableName: config.keyTableName });
    expect(expiries).toHaveLength(1);
    expect(await expiryRecords(key.keyId)).toHaveLength(1);
  });

  it('restarted before the end: rearmFromStore re-arms the transition, which expires at its end', async () => {
    // Prepare
    const first = startScheduler();
    const key = await rotatedKey(3);
    await first.stop();
    clock.advance(MS_PER_DAY);

    // Act
    const second = startScheduler();
    const summary = await second.rearmFromStore({ db: documentClient(), keyTableName: config.keyTableName });

    // Assess
    expect(summary.armed).toBeGreaterThanOrEqual(1);
    expect(pendingFor(second, key.keyId)).toEqual([{ keyId: key.keyId, generation: 2, at: key.endsAt }]);
    expect(expiries).toEqual([]);

    await second.tick(2 * MS_PER_DAY - 1);
    expect(expiries).toEqual([]);
    expect((await checkValue(key.oldValue)).valid).toBe(true);

    await second.tick(1);
    expect(expiries).toEqual([{ keyId: key.keyId, generation: 2 }]);
    expect(await lookupItemOf(key.oldValue)).toBeUndefined();
    expect(await expiryRecords(key.keyId)).toHaveLength(1);
  });
});

describe('local scheduler: timing rules', () => {
  it('a schedule that fires before the transition end (replaced schedule) waits for the end instead', async () => {
    // Prepare: the stored transition ends in 2 days, but a stray schedule says 1 day
    const scheduler = startScheduler();
    const key = await rotatedKey(2);
    await scheduler.schedule({ keyId: key.keyId, generation: 2, at: new Date(clock.now().getTime() + MS_PER_DAY).toISOString() });

    // Act
    await scheduler.tick(MS_PER_DAY);

    // Assess: it ran, found the transition not due, and re-armed at the real end
    expect(expiries).toEqual([{ keyId: key.keyId, generation: 2 }]);
    expect(await expiryRecords(key.keyId)).toHaveLength(0);
    expect(pendingFor(scheduler, key.keyId)).toEqual([{ keyId: key.keyId, generation: 2, at: key.endsAt }]);

    await scheduler.tick(MS_PER_DAY);
    expect(await expiryRecords(key.keyId)).toHaveLength(1);
  });

  it('a failing expiry is retried after the retry delay, then given up (the next start re-arms it)', async () => {
    // Prepare
    const expire = jest.fn<Promise<unknown>, [RevocationRequest]>().mockRejectedValue(new Error('table unavailable'));
    captured.clear();
    const scheduler = createLocalScheduler({ clock, expire, maxAttempts: 2, retryDelayMs: 60_000, logger: testObservability.logger });
    schedulers.push(scheduler);
    const request = { keyId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2 };
    await scheduler.schedule({ ...request, at: new Date(clock.now().getTime() + 1000).toISOString() });

    // Act + Assess
    await scheduler.tick(1000);
    expect(expire).toHaveBeenCalledTimes(1);
    expect(scheduler.pending()).toEqual([{ ...request, at: new Date(clock.now().getTime() + 60_000).toISOString() }]);
    await scheduler.tick(59_999);
    expect(expire).toHaveBeenCalledTimes(1);
    await scheduler.tick(1);
    expect(expire).toHaveBeenCalledTimes(2);
    expect(scheduler.pending()).toEqual([]);
    const errors = captured.lines.filter((line) => line.level === 'ERROR').map((line) => JSON.parse(line.json));
    expect(errors.map((line) => [line.message, line.will_retry])).toEqual([
      ['local expiry failed', true],
      ['local expiry failed', false],
    ]);
  });

  it('rescheduling a transition replaces its time; cancel removes it', async () => {
    const expire = jest.fn<Promise<unknown>, [RevocationRequest]>().mockResolvedValue({ outcome: 'expired' });
    const scheduler = createLocalScheduler({ clock, expire });
    schedulers.push(scheduler);
    const request = { keyId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 5 };
    const later = new Date(clock.now().getTime() + 2000).toISOString();

    await scheduler.schedule({ ...request, at: new Date(clock.now().getTime() + 1000).toISOString() });
    await scheduler.schedule({ ...request, at: later });
    expect(scheduler.pending()).toEqual([{ ...request, at: later }]);
    await scheduler.tick(1000);
    expect(expire).not.toHaveBeenCalled();

    await scheduler.cancel(request);
    await scheduler.tick(5000);
    expect(expire).not.toHaveBeenCalled();
    expect(scheduler.pending()).toEqual([]);
  });

  it('tick needs a ManualClock', async () => {
    const scheduler = createLocalScheduler({ clock: { now: () => new Date() }, expire: async () => undefined });
    schedulers.push(scheduler);
    await expect(scheduler.tick(1)).rejects.toThrow('tick needs a ManualClock');
  });
});

describe('local scheduler: real timers', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('fires on its own when the system clock reaches the end', async () => {
    // Prepare
    let fired!: (request: RevocationRequest) => void;
    const firedOnce = new Promise<RevocationRequest>((resolve) => (fired = resolve));
    const scheduler = createLocalScheduler({
      clock: { now: () => new Date() },
      expire: async (request) => fired(request),
    });
    schedulers.push(scheduler);

    // Act
    await scheduler.schedule({ keyId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2, at: new Date(Date.now() + 50).toISOString() });

    // Assess
    await expect(firedOnce).resolves.toEqual({ keyId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2 });
  });

  it('waits longer than setTimeout allows by chaining timers, and never fires early', async () => {
    // Prepare
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const expire = jest.fn<Promise<unknown>, [RevocationRequest]>().mockResolvedValue({ outcome: 'expired' });
    const scheduler = createLocalScheduler({ clock: { now: () => new Date() }, expire });
    schedulers.push(scheduler);
    const wait = 40 * MS_PER_DAY; // > 2^31 - 1 ms (about 24.8 days)

    // Act
    await scheduler.schedule({ keyId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', generation: 2, at: new Date(Date.now() + wait).toISOString() });
    await jest.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS);

    // Assess
    expect(expire).not.toHaveBeenCalled();
    expect(scheduler.pending()).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(wait - MAX_TIMER_DELAY_MS - 1);
    expect(expire).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(expire).toHaveBeenCalledTimes(1);
    expect(scheduler.pending()).toEqual([]);
  });
});
