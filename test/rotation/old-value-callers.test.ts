/**
 * Who still sends the old value (issue 47 point 2, docs/verification.md):
 * while a key is in a transition its read shows `old_value` (last four, end,
 * last use, uses in the last hour, at most 5 caller networks as IPv4 /24 or
 * IPv6 /48, never a full address) and the current value's last use, from
 * entries the recording write keeps on the usage item (no write of their own).
 */
import { verifyKey } from '../../lambda/verification/verify';
import type { ManualClock } from '../../lambda/platform/clock';
import { TRACKED_SOURCES } from '../../lambda/verification/grace';
import { call, createKey, newTeam } from '../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { testServices, useTestServices } from '../support/services';
import { usageItem } from '../support/store';

let clock: ManualClock;

beforeEach(() => {
  clock = installManualClock(Date.parse('2027-03-01T10:15:00.000Z'));
  useTestServices({ usageLeases: { enabled: false } });
});

afterEach(() => {
  useTestServices({});
  restoreSystemClock();
});

async function rolledKey() {
  const team = await newTeam();
  const key = await createKey(team);
  const rolled = await call('regenerate-api-key', { key: team.key, body: { key_id: key.id, grace_period_days: 2 } });
  expectStatus(rolled, 200);
  return { team, id: key.id, oldValue: key.key, newValue: rolled.body.new_key as string, endsAt: rolled.body.key_info.transition_ends_at as string };
}

const use = async (value: string, sourceIp: string) => (await verifyKey(testServices(), { value, sourceIp })).code;

async function read(key: { team: { key: string }; id: string }) {
  const answer = await call('get-api-key', { key: key.team.key, query: { key_id: key.id } });
  expectStatus(answer, 200);
  return answer.body.data as Record<string, unknown>;
}

it('the read lists the old value’s callers by network, the most uses first, at most 5, and the current value’s last use', async () => {
  // Arrange: the old value from 7 networks (3, 2, then 1 use each), the new value once.
  const key = await rolledKey();
  const calls: Array<[string, number]> = [
    ['203.0.113.9', 3],
    ['2001:db8:1:2::5', 2],
    ['198.51.100.7', 1],
    ['192.0.2.44', 1],
    ['100.64.3.3', 1],
    ['172.16.9.1', 1],
    ['10.1.2.3', 1],
  ];
  for (const [address, times] of calls) {
    for (let i = 0; i < times; i++) {
      clock.advance(1_000);
      expect(await use(key.oldValue, address)).toBe('VALID');
    }
  }
  const lastOldUse = clock.now().toISOString();
  clock.advance(1_000);
  expect(await use(key.newValue, '203.0.113.200')).toBe('VALID');

  // Act
  const data = await read(key);

  // Assess
  expect(data.state).toBe('in_transition');
  expect(data.current_value).toEqual({ last_four: key.newValue.slice(-4), last_used_at: clock.now().toISOString() });
  const old = data.old_value as { sources: Array<{ source: string; uses: number; last_used_at: string }> };
  expect(old).toMatchObject({ last_four: key.oldValue.slice(-4), ends_at: key.endsAt, last_used_at: lastOldUse, uses_last_hour: 10 });
  expect(old.sources.map(({ source, uses }) => [source, uses])).toEqual([
    ['203.0.113.0/24', 3],
    ['2001:db8:1::/48', 2],
    // Then the one-use networks, the latest first.
    ['10.1.2.0/24', 1],
    ['172.16.9.0/24', 1],
    ['100.64.3.0/24', 1],
  ]);
  expect(old.sources[0].last_used_at).toBe(new Date(Date.parse('2027-03-01T10:15:03.000Z')).toISOString());
  // Never a full address, in the answer or at rest.
  const stored = JSON.stringify(await usageItem(key.id));
  for (const [address] of calls) {
    expect(JSON.stringify(data)).not.toContain(address);
    expect(stored).not.toContain(address);
  }
});

it('uses_last_hour counts this clock hour and the part of the previous one still in the last 60 minutes', async () => {
  // Arrange: 4 uses at 09:40, 2 at 10:05; read at 10:15 (a quarter into the hour: 3 of the 4 earlier uses count).
  const key = await rolledKey();
  clock.set(Date.parse('2027-03-01T09:40:00.000Z'));
  for (let i = 0; i < 4; i++) await use(key.oldValue, '198.51.100.7');
  clock.set(Date.parse('2027-03-01T10:05:00.000Z'));
  for (let i = 0; i < 2; i++) await use(key.oldValue, '198.51.100.7');
  clock.set(Date.parse('2027-03-01T10:15:00.000Z'));

  // Act
  const first = (await read(key)).old_value as { uses_last_hour: number };
  clock.set(Date.parse('2027-03-01T11:30:00.000Z'));
  const later = (await read(key)).old_value as { uses_last_hour: number; last_used_at: string };

  // Assess
  expect(first.uses_last_hour).toBe(2 + 3);
  expect(later).toMatchObject({ uses_last_hour: 1, last_used_at: '2027-03-01T10:05:00.000Z' });
});

it('a key not in a transition reads as before: no old_value, no current_value', async () => {
  // Arrange
  const team = await newTeam();
  const key = await createKey(team);
  await use(key.key, '198.51.100.7');

  // Act
  const data = await read({ team, id: key.id });

  // Assess
  expect(data).not.toHaveProperty('old_value');
  expect(data).not.toHaveProperty('current_value');
});

it(`one process tracks at most ${TRACKED_SOURCES} networks per old value; uses from others still count`, async () => {
  // Arrange
  const key = await rolledKey();

  // Act: 25 networks.
  for (let n = 1; n <= 25; n++) expect(await use(key.oldValue, `198.51.${n}.7`)).toBe('VALID');

  // Assess
  const entries = (await usageItem(key.id))?.transitions as Record<string, number>;
  expect(Object.keys(entries).filter((name) => name.startsWith('g2_old_src:'))).toHaveLength(TRACKED_SOURCES);
  expect(entries.g2_old).toBe(25);
  expect(((await read(key)).old_value as { sources: unknown[] }).sources).toHaveLength(5);
});
