/**
 * A team's unused-key policy (issue 47 point 4, docs/operations.md "Keys
 * nobody uses"): `get-team-settings` / `update-team-settings` keep
 * `disable_unused_after_days` (null, or 30–730; If-Match, audited), and the
 * daily job disables the keys with no VALID use in that many days, with
 * `key.unused` 7 days before and `key.disabled` with `reason: "unused"`,
 * never the team's last manager key. Time moves on a manual clock.
 */
import { applyUnusedKeyPolicies } from '../../lambda/use-cases/unused-keys';
import { verifyKey } from '../../lambda/verification/verify';
import { MS_PER_DAY, type ManualClock } from '../../lambda/platform/clock';
import { call, createKey, newTeam, type TestTeam } from '../support/api';
import { MANAGER_SCOPES, expectStatus, installManualClock, restoreSystemClock } from '../support/keys';
import { testServices } from '../support/services';
import { auditRecordsOf, auditRecordsOfType, keyItem } from '../support/store';

let clock: ManualClock;
/** The job over this test's teams only (other tests' teams share the tables, and the clock here is far ahead). */
const ownTeams: string[] = [];

beforeEach(() => {
  clock = installManualClock(Date.parse('2027-01-10T06:00:00.000Z'));
  ownTeams.length = 0;
});

afterEach(() => {
  restoreSystemClock();
});

async function setPolicy(team: TestTeam, days: number | null, headers: Record<string, string> = {}) {
  ownTeams.push(team.teamId);
  return call('update-team-settings', { key: team.key, body: { team_id: team.teamId, disable_unused_after_days: days }, headers });
}
const runJob = () => applyUnusedKeyPolicies(testServices(), 'unused-policy-test', ownTeams);
const stateOf = async (team: TestTeam, id: string) => {
  const read = await call('get-api-key', { key: team.key, query: { key_id: id } });
  return read.body.data as { is_active: boolean; state: string };
};

describe('the settings routes', () => {
  it('read null by default; a change answers the new value with the next ETag, is audited once, and honours If-Match', async () => {
    // Arrange
    const team = await newTeam();

    // Act
    const before = await call('get-team-settings', { key: team.key, query: { team_id: team.teamId } });
    const changed = await setPolicy(team, 90, { 'If-Match': '"0"' });
    const stale = await setPolicy(team, 120, { 'If-Match': '"0"' });
    const same = await setPolicy(team, 90);
    const after = await call('get-team-settings', { key: team.key, query: { team_id: team.teamId } });

    // Assess
    expectStatus(before, 200);
    expect(before.body.data).toMatchObject({ team_id: team.teamId, disable_unused_after_days: null });
    expect(before.headers.ETag).toBe('"0"');
    expectStatus(changed, 200);
    expect(changed.body.data).toEqual({ team_id: team.teamId, disable_unused_after_days: 90, updated_at: clock.now().toISOString() });
    expect(changed.headers.ETag).toBe('"1"');
    expect(stale.status).toBe(412);
    expect(stale.headers.ETag).toBe('"1"');
    expect([same.status, same.headers.ETag]).toEqual([200, '"1"']);
    expect(after.body.data).toMatchObject({ disable_unused_after_days: 90 });
    const records = await auditRecordsOfType(team.keyId, 'team.settings_updated');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ team_id: team.teamId, key_id: team.keyId, changes: { disable_unused_after_days: { before: null, after: 90 } } });
  });

  it.each([[29], [731], [30.5], ['365'], [undefined]])('disable_unused_after_days %j → 400, nothing changed', async (days) => {
    // Arrange
    const team = await newTeam();

    // Act
    const refused = await call('update-team-settings', {
      key: team.key,
      body: { team_id: team.teamId, ...(days === undefined ? {} : { disable_unused_after_days: days }) },
    });

    // Assess
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.error.details)).toContain('disable_unused_after_days');
    expect((await call('get-team-settings', { key: team.key, query: { team_id: team.teamId } })).body.data.disable_unused_after_days).toBeNull();
  });

  it('two changes at once under the same If-Match: one wins, the other is refused 412; one audit record', async () => {
    // Arrange
    const team = await newTeam();

    // Act
    const answers = await Promise.all([setPolicy(team, 60, { 'If-Match': '"0"' }), setPolicy(team, 90, { 'If-Match': '"0"' })]);

    // Assess
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
    const won = answers.find((answer) => answer.status === 200)?.body.data.disable_unused_after_days;
    expect((await call('get-team-settings', { key: team.key, query: { team_id: team.teamId } })).body.data.disable_unused_after_days).toBe(won);
    expect(await auditRecordsOfType(team.keyId, 'team.settings_updated')).toHaveLength(1);
  });

  it('a manager key of the test environment cannot reach the settings (they govern live keys too)', async () => {
    const team = await newTeam();
    const testManager = await createKey(team, { environment: 'test', scopes: MANAGER_SCOPES });
    const read = await call('get-team-settings', { key: testManager.key, query: { team_id: team.teamId } });
    const change = await call('update-team-settings', { key: testManager.key, body: { team_id: team.teamId, disable_unused_after_days: 60 } });
    expect([read.status, change.status]).toEqual([403, 403]);
  });

  it('another team’s settings: 403 on read and change', async () => {
    const team = await newTeam();
    const other = await newTeam();
    expect((await call('get-team-settings', { key: team.key, query: { team_id: other.teamId } })).status).toBe(403);
    expect((await setPolicy({ ...team, teamId: other.teamId }, 60)).status).toBe(403);
  });
});

describe('the daily job', () => {
  it('warns 7 days before, once; disables after the policy’s days with reason unused; a key used since is kept', async () => {
    // Arrange: policy 30 days; an idle key, a key used on day 20, a key made on day 10.
    const team = await newTeam();
    expectStatus(await setPolicy(team, 30), 200);
    const idle = await createKey(team, { name: 'idle' });
    const used = await createKey(team, { name: 'used' });
    const start = clock.now().getTime();
    clock.set(start + 10 * MS_PER_DAY);
    const late = await createKey(team, { name: 'late' });
    clock.set(start + 20 * MS_PER_DAY);
    expect((await verifyKey(testServices(), { value: used.key })).code).toBe('VALID');

    // Act: runs on day 22 (nothing), 23 (the warning), 23 again, 29, 30 (disabled), 30 again.
    const runs: Record<string, unknown>[] = [];
    for (const day of [22, 23, 23, 29, 30, 30]) {
      clock.set(start + day * MS_PER_DAY);
      runs.push({ ...(await runJob()) });
    }

    // Assess
    expect(runs.map((run) => [run.warned, run.disabled])).toEqual([
      [0, 0],
      [1, 0],
      [0, 0],
      [0, 0],
      [0, 1],
      [0, 0],
    ]);
    const warning = await auditRecordsOfType(idle.id, 'key.unused');
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatchObject({ last_valid_at: null, disable_at: new Date(start + 30 * MS_PER_DAY).toISOString(), disable_unused_after_days: 30 });
    const disabled = await auditRecordsOfType(idle.id, 'key.disabled');
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toMatchObject({ reason: 'unused', changes: { is_active: { before: true, after: false } }, actor: { user_id: 'system' } });
    expect(await stateOf(team, idle.id)).toMatchObject({ is_active: false, state: 'disabled' });
    expect((await verifyKey(testServices(), { value: idle.key })).code).toBe('INACTIVE');
    // The key used on day 20 and the key made on day 10 are not due yet (day 50 and day 40), and were not warned.
    expect(await stateOf(team, used.id)).toMatchObject({ is_active: true });
    expect(await stateOf(team, late.id)).toMatchObject({ is_active: true });
    expect((await auditRecordsOf(used.id)).map((record) => record.event_type)).not.toContain('key.unused');
  });

  it('never disables the team’s last manager key; another manager goes while one stays', async () => {
    // Arrange: two idle managers (the bootstrap one and another), policy 30 days.
    const team = await newTeam();
    const second = await createKey(team, { name: 'second manager', scopes: MANAGER_SCOPES });
    expectStatus(await setPolicy(team, 30), 200);
    const start = clock.now().getTime();

    // Act
    clock.set(start + 400 * MS_PER_DAY);
    const first = await runJob();
    // Read from the table: a read through the API with the manager key would be a use of it.
    const activeNow = async () => [(await keyItem(team.keyId))?.is_active, (await keyItem(second.id))?.is_active];
    const afterFirst = await activeNow();
    const again = await runJob();
    const afterAgain = await activeNow();

    // Assess: one of the two disabled, the other kept as the last manager, on this run and the next.
    expect(afterFirst.filter((active) => active)).toHaveLength(1);
    expect(afterAgain).toEqual(afterFirst);
    const disabledRecords = [...(await auditRecordsOfType(team.keyId, 'key.disabled')), ...(await auditRecordsOfType(second.id, 'key.disabled'))];
    expect(disabledRecords.map((record) => record.reason)).toEqual(['unused']);
    expect([first.disabled, first.kept_last_manager, again.disabled, again.kept_last_manager]).toEqual([1, 1, 0, 1]);
  });

  it('a team without the policy, or with it set back to null, is left alone', async () => {
    // Arrange
    const team = await newTeam();
    const key = await createKey(team);
    expectStatus(await setPolicy(team, 30), 200);
    expectStatus(await setPolicy(team, null), 200);

    // Act
    clock.set(clock.now().getTime() + 400 * MS_PER_DAY);
    await runJob();

    // Assess
    expect(await stateOf(team, key.id)).toMatchObject({ is_active: true });
  });
});
