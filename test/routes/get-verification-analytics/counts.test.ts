/**
 * Verification analytics (docs/analytics.md): every verification of a value
 * that belongs to a key is counted by key, identity, scope and outcome, and
 * read back exactly by minute, hour and day.
 */
import { call, createKey, teamPerSuite, type TestTeam } from '../../support/api';
import { expectStatus, installManualClock, restoreSystemClock } from '../../support/keys';
import { callVerify } from '../../verify/helpers';
import { testServices } from '../../support/services';
import { usageItem } from '../../support/store';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../../lambda/composition/dynamo';
import { config } from '../../../lambda/composition/config';
import { KEY } from '../../../lambda/store/entities/key';
import { smokeTest } from '../../support/route-fixtures';

const TILES = 'enc.tiles:read';
const IDENTIFY = 'interact.identify:read';

type Row = { start: string; outcome?: string; scope?: string | null; key_id?: string; identity_id?: string | null; count: number };

async function analytics(team: TestTeam, query: Record<string, string>, groupBy: string[] = []) {
  return call('get-verification-analytics', {
    key: team.key,
    query: { team_id: team.teamId, ...query },
    ...(groupBy.length > 0 ? { repeatedQuery: { group_by: groupBy } } : {}),
  });
}

/** The rows' counts added up by `field` (the rows of every bucket together). */
function totalsBy(rows: Row[], field: keyof Row): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const row of rows) totals[String(row[field])] = (totals[String(row[field])] ?? 0) + row.count;
  return totals;
}

describe('GET /functions/v1/get-verification-analytics — the counts', () => {
  const team = teamPerSuite();
  afterEach(() => restoreSystemClock());

  it('7 VALID and 3 SCOPE_DENIED on one key, 2 VALID and 3 RATE_LIMITED on a second, 2 INACTIVE once the first is disabled: exactly those, by outcome, key and scope', async () => {
    // Prepare
    const clock = installManualClock(Date.parse('2026-11-29T10:00:05Z'));
    const first = await createKey(team, { name: 'tiles', scopes: [TILES] });
    const second = await createKey(team, { name: 'capped', rate_limit: 2 });

    // Act
    for (let i = 0; i < 7; i++) expect((await callVerify({ key: first.key, scope: TILES })).body.code).toBe('VALID');
    for (let i = 0; i < 3; i++) expect((await callVerify({ key: first.key, scope: IDENTIFY })).body.code).toBe('SCOPE_DENIED');
    const capped = await Promise.all(Array.from({ length: 5 }, () => callVerify({ key: second.key })));
    clock.advance(60_000);
    expectStatus(await call('update-api-key', { key: team.key, body: { key_id: first.id, is_active: false } }), 200);
    for (let i = 0; i < 2; i++) expect((await callVerify({ key: first.key, scope: TILES })).body.code).toBe('INACTIVE');
    const range = { from: '2026-11-29T10:00:00Z', to: '2026-11-29T10:01:59Z', granularity: 'minute' };
    const byOutcome = await analytics(team, range, ['outcome']);
    const byKey = await analytics(team, range, ['key', 'outcome']);
    const byScope = await analytics(team, range, ['scope']);
    const totals = await analytics(team, range);

    // Assess
    expect(capped.map((answer) => answer.body.code).sort()).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'VALID', 'VALID']);
    expectStatus(byOutcome, 200);
    // The manager key's own requests are counted too (keys.manage): its two creates at 10:00, and at 10:01 the
    // update and this read (a request is counted as it is authenticated, before the read writes what is held).
    expect(byOutcome.body.data).toEqual([
      { start: '2026-11-29T10:00:00.000Z', outcome: 'VALID', count: 9 + 2 },
      { start: '2026-11-29T10:00:00.000Z', outcome: 'RATE_LIMITED', count: 3 },
      { start: '2026-11-29T10:00:00.000Z', outcome: 'SCOPE_DENIED', count: 3 },
      { start: '2026-11-29T10:01:00.000Z', outcome: 'INACTIVE', count: 2 },
      { start: '2026-11-29T10:01:00.000Z', outcome: 'VALID', count: 1 + 1 },
    ]);
    expect(byOutcome.body.meta).toMatchObject({
      granularity: 'minute',
      from: '2026-11-29T10:00:00.000Z',
      to: '2026-11-29T10:02:00.000Z',
      group_by: ['outcome'],
    });
    const keyRows = byKey.body.data as Row[];
    expect(keyRows.filter((row) => row.key_id === first.id).map(({ outcome, count }) => [outcome, count])).toEqual([
      ['VALID', 7],
      ['SCOPE_DENIED', 3],
      ['INACTIVE', 2],
    ]);
    expect(keyRows.filter((row) => row.key_id === second.id).map(({ outcome, count }) => [outcome, count])).toEqual([
      ['RATE_LIMITED', 3],
      ['VALID', 2],
    ]);
    // The manager: 2 creates, the update and the first two reads (the second counted before it read).
    expect(keyRows.filter((row) => row.key_id === team.keyId).map(({ start, outcome, count }) => [start.slice(11, 16), outcome, count])).toEqual([
      ['10:00', 'VALID', 2],
      ['10:01', 'VALID', 3],
    ]);
    expect(keyRows.every((row) => row.identity_id === null)).toBe(true);
    // Four reads by then, the third this one.
    expect(totalsBy(byScope.body.data as Row[], 'scope')).toEqual({ [TILES]: 9, [IDENTIFY]: 3, null: 5, 'keys.manage': 2 + 1 + 3 });
    expect(totals.body.data).toEqual([
      { start: '2026-11-29T10:00:00.000Z', count: 15 + 2 },
      { start: '2026-11-29T10:01:00.000Z', count: 2 + 1 + 4 },
    ]);
    // The limiter's own record: the second key's admitted uses are the VALID counted.
    expect(Object.values(((await usageItem(second.id))?.windows ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('one key, or one identity, alone; the busiest `limit` keys when grouped by key', async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-29T12:30:00Z'));
    const made = await call('create-identity', { key: team.key, body: { team_id: team.teamId, external_id: 'acme-analytics' } });
    expectStatus(made, 201);
    const identityId = made.body.data.id as string;
    const keys = [await createKey(team, { identity_id: identityId }), await createKey(team), await createKey(team)];

    // Act
    for (const [index, key] of keys.entries()) for (let i = 0; i <= index * 2; i++) await callVerify({ key: key.key });
    const range = { from: '2026-11-29T12:30:00Z', to: '2026-11-29T12:30:00Z', granularity: 'minute' };
    const one = await analytics(team, { ...range, key_id: keys[1]!.id });
    const identity = await analytics(team, { ...range, identity_id: identityId }, ['key']);
    const busiest = await analytics(team, { ...range, limit: '3' }, ['key']);

    // Assess
    expect(one.body.data).toEqual([{ start: '2026-11-29T12:30:00.000Z', count: 3 }]);
    expect(identity.body.data).toEqual([{ start: '2026-11-29T12:30:00.000Z', key_id: keys[0]!.id, identity_id: identityId, count: 1 }]);
    // The busiest is the manager key itself: the identity, three creates, two reads and this one.
    expect((busiest.body.data as Row[]).map((row) => [row.key_id, row.count])).toEqual([
      [team.keyId, 7],
      [keys[2]!.id, 5],
      [keys[1]!.id, 3],
    ]);
  });

  it('a deleted key keeps its counts: grouped by key it is named, and marked deleted; once its tombstone is gone, still read by its counts', async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-29T14:10:00Z'));
    const [kept, gone] = [await createKey(team, { name: 'kept' }), await createKey(team, { name: 'gone' })];
    for (let i = 0; i < 2; i++) await callVerify({ key: kept.key });
    for (let i = 0; i < 3; i++) await callVerify({ key: gone.key });

    // Act
    expectStatus(await call('delete-api-key', { key: team.key, body: { key_id: gone.id, confirm_deletion: true } }), 200);
    const range = { from: '2026-11-29T14:00:00Z', to: '2026-11-29T14:59:59Z', granularity: 'hour' };
    const grouped = await analytics(team, range, ['key']);
    const one = await analytics(team, { ...range, key_id: gone.id });

    // Assess (the manager key's own requests aside: two creates, the delete and this read)
    const notManager = (row: { key_id?: string }) => row.key_id !== team.keyId;
    expect((grouped.body.data as Row[]).filter((row) => row.key_id === team.keyId).map((row) => row.count)).toEqual([4]);
    expect((grouped.body.data as Row[]).filter(notManager).map((row) => [row.key_id, row.count])).toEqual([
      [gone.id, 3],
      [kept.id, 2],
    ]);
    expect(grouped.body.meta.keys.filter(notManager)).toEqual([
      { key_id: gone.id, name: 'gone', deleted: true },
      { key_id: kept.id, name: 'kept', deleted: false },
    ]);
    expect(one.body.data).toEqual([{ start: '2026-11-29T14:00:00.000Z', count: 3 }]);

    // Its tombstone gone (90 days on, removed here by hand): grouped by key it is deleted with no name; by key_id it answers where it
    // has counts, and 404 (as an unknown id) where it has none
    await documentClient().send(new DeleteCommand({ TableName: config.keyTableName, Key: KEY.key(gone.id) }));
    const purged = await analytics(team, range, ['key']);
    const byId = await analytics(team, { ...range, key_id: gone.id });
    const elsewhere = await analytics(team, { ...range, from: '2026-11-29T13:00:00Z', to: '2026-11-29T13:59:59Z', key_id: gone.id });
    expect(purged.body.meta.keys.filter(notManager)).toEqual([
      { key_id: gone.id, name: null, deleted: true },
      { key_id: kept.id, name: 'kept', deleted: false },
    ]);
    expect(byId.body.data).toEqual([{ start: '2026-11-29T14:00:00.000Z', count: 3 }]);
    expect([elsewhere.status, elsewhere.body.error?.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('by hour and by day: the last 25 hours from the minute records, older hours and days from their rollups, recomputed exactly when a count arrives late', async () => {
    // Prepare: 4 verifications at 08:10 on 2026-11-20, then the clock 30 hours on
    const clock = installManualClock(Date.parse('2026-11-20T08:10:00Z'));
    const key = await createKey(team);
    for (let i = 0; i < 4; i++) await callVerify({ key: key.key });
    await testServices().counts.flush();
    const hour = { key_id: key.id, from: '2026-11-20T08:00:00Z', to: '2026-11-20T08:59:59Z', granularity: 'hour' };
    const day = { key_id: key.id, from: '2026-11-20T00:00:00Z', to: '2026-11-20T23:59:59Z', granularity: 'day' };
    const fresh = await analytics(team, hour);
    clock.advance(30 * 3_600_000);

    // Act
    const beforeRollup = await analytics(team, hour);
    const rolled = await testServices().analytics.rollUp(clock.now().getTime());
    const afterRollup = [await analytics(team, hour), await analytics(team, day)];
    const again = await testServices().analytics.rollUp(clock.now().getTime());

    // Assess
    expect(fresh.body.data).toEqual([{ start: '2026-11-20T08:00:00.000Z', count: 4 }]);
    expect(beforeRollup.body.data).toEqual([{ start: '2026-11-20T08:00:00.000Z', count: 0 }]);
    expect(rolled.hours).toBeGreaterThanOrEqual(1);
    expect(afterRollup.map((answer) => answer.body.data)).toEqual([
      [{ start: '2026-11-20T08:00:00.000Z', count: 4 }],
      [{ start: '2026-11-20T00:00:00.000Z', count: 4 }],
    ]);
    expect(again).toEqual({ hours: 0, again: 0 });
  });

  it('a count written after its hour was rolled up marks the hour again, and the next rollup adds it: never lost, never twice', async () => {
    // Prepare
    const clock = installManualClock(Date.parse('2026-11-21T09:59:50Z'));
    const key = await createKey(team);
    await callVerify({ key: key.key });
    await testServices().counts.flush();
    clock.advance(3 * 60_000); // 10:02:50: the 09:00 hour ended more than 2 minutes ago
    await testServices().analytics.rollUp(clock.now().getTime());

    // Act: a count of 09:59 held by a process that wrote it only now (a sandbox thawed late)
    clock.set(Date.parse('2026-11-21T09:59:55Z'));
    await callVerify({ key: key.key });
    clock.set(Date.parse('2026-11-21T10:03:00Z'));
    await testServices().counts.flush();
    const first = await testServices().analytics.rollUp(clock.now().getTime());
    const second = await testServices().analytics.rollUp(clock.now().getTime());
    clock.advance(30 * 3_600_000);
    const read = await analytics(team, { key_id: key.id, from: '2026-11-21T09:00:00Z', to: '2026-11-21T09:00:00Z', granularity: 'hour' });

    // Assess
    expect(first.hours).toBe(1);
    expect(second).toEqual({ hours: 0, again: 0 });
    expect(read.body.data).toEqual([{ start: '2026-11-21T09:00:00.000Z', count: 2 }]);
  });
});

// Its fixture's valid request (lambda/routes/get-verification-analytics/fixture.ts) answers as documented.
smokeTest('get-verification-analytics');
