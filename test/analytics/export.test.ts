/**
 * The analytics' hours as Parquet (docs/analytics.md): exported by the
 * rollup, read with DuckDB as `npm run analytics` reads them, giving the
 * same totals as the route; a late count replaces its hour's file; the
 * documented example queries run.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, createKey, teamPerSuite } from '../support/api';
import { installManualClock, restoreSystemClock } from '../support/keys';
import { testServices } from '../support/services';
import { callVerify } from '../verify/helpers';
import { rollUpAnalytics } from '../../lambda/use-cases/analytics-rollup';
import { folderAnalyticsExport } from '../../lambda/adapters/analytics-export';
import { analyticsDir } from '../../local/analytics-files';
import { parseAnalyticsArgs, query } from '../../local/analytics-cli';

const DOCS = path.resolve(__dirname, '..', '..', 'docs', 'analytics.md');

describe('the analytics export: Parquet files DuckDB reads', () => {
  const team = teamPerSuite();
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'analytics-export-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    restoreSystemClock();
  });

  const rollUp = (openHours = false) => rollUpAnalytics({ ...testServices(), analyticsExport: folderAnalyticsExport(analyticsDir(dataDir)) }, { openHours });

  it('the same totals as the route, by outcome and by key; a late count replaces its hour’s file', async () => {
    // Prepare: 10:00–10:59 on 2026-11-27, two keys, VALID and SCOPE_DENIED
    const clock = installManualClock(Date.parse('2026-11-27T10:20:00Z'));
    const [a, b] = [await createKey(team, { scopes: ['enc.tiles:read'] }), await createKey(team)];
    for (let i = 0; i < 5; i++) await callVerify({ key: a.key, scope: 'enc.tiles:read' });
    for (let i = 0; i < 2; i++) await callVerify({ key: a.key, scope: 'enc.charts:read' });
    for (let i = 0; i < 3; i++) await callVerify({ key: b.key });
    await testServices().counts.flush();

    // Act: the hour ends and is rolled up; a count of 10:59 arrives late and is rolled up again
    clock.set(Date.parse('2026-11-27T11:05:00Z'));
    const first = await rollUp();
    const sql = `SELECT outcome, CAST(sum(count) AS INTEGER) AS n FROM verifications WHERE team_id = '${team.teamId}' GROUP BY outcome ORDER BY outcome`;
    const before = await query(dataDir, sql);
    clock.set(Date.parse('2026-11-27T10:59:30Z'));
    await callVerify({ key: b.key });
    clock.set(Date.parse('2026-11-27T11:10:00Z'));
    await testServices().counts.flush();
    await rollUp();
    const after = await query(dataDir, sql);
    const byKey = await query(
      dataDir,
      `SELECT key_id, CAST(sum(count) AS INTEGER) AS n, min(day) AS day FROM verifications WHERE team_id = '${team.teamId}' GROUP BY key_id ORDER BY n DESC`,
    );
    const route = await call('get-verification-analytics', {
      key: team.key,
      query: { team_id: team.teamId, from: '2026-11-27T10:00:00Z', to: '2026-11-27T10:59:59Z', granularity: 'hour' },
      repeatedQuery: { group_by: ['outcome'] },
    });

    // Assess
    expect(first.hours).toBe(1);
    // VALID: 8 verifications and the manager key's two creates (its own requests are counted too).
    expect(before).toEqual([
      { outcome: 'SCOPE_DENIED', n: 2 },
      { outcome: 'VALID', n: 8 + 2 },
    ]);
    expect(after).toEqual([
      { outcome: 'SCOPE_DENIED', n: 2 },
      { outcome: 'VALID', n: 9 + 2 },
    ]);
    expect(
      route.body.data
        .map((row: { outcome: string; count: number }) => ({ outcome: row.outcome, n: row.count }))
        .sort((x: { outcome: string }, y: { outcome: string }) => x.outcome.localeCompare(y.outcome)),
    ).toEqual(after);
    expect(byKey).toEqual([
      { key_id: a.id, n: 7, day: '2026-11-27' },
      { key_id: b.id, n: 4, day: '2026-11-27' },
      { key_id: team.keyId, n: 2, day: '2026-11-27' },
    ]);
    expect(readdirSync(path.join(analyticsDir(dataDir), 'verifications', 'day=2026-11-27'))).toEqual([`${team.teamId}-10.parquet`]);
  });

  it('--refresh exports the hour still running; the five example queries of docs/analytics.md run on the export', async () => {
    // Prepare
    installManualClock(Date.parse('2026-11-27T12:10:00Z'));
    const key = await createKey(team);
    for (let i = 0; i < 4; i++) await callVerify({ key: key.key });
    await testServices().counts.flush();

    // Act
    await rollUp(true);
    const running = await query(dataDir, `SELECT CAST(sum(count) AS INTEGER) AS n FROM verifications WHERE key_id = '${key.id}'`);
    const examples = [...readFileSync(DOCS, 'utf8').matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] as string);
    const answers = await Promise.all(examples.map((sql) => query(dataDir, sql)));

    // Assess
    expect(running).toEqual([{ n: 4 }]);
    expect(examples).toHaveLength(5);
    expect(answers.every((rows) => Array.isArray(rows))).toBe(true);
    expect(answers[0]!.length).toBeGreaterThan(0);
  });

  it('the command line: --sql is required, an unknown option is refused', () => {
    expect(parseAnalyticsArgs(['--sql', 'SELECT 1', '--refresh'])).toEqual({ sql: 'SELECT 1', refresh: true });
    expect(() => parseAnalyticsArgs(['--refresh'])).toThrow('--sql "<query>" is required');
    expect(() => parseAnalyticsArgs(['--sql', 'SELECT 1', '--fast'])).toThrow('unknown option --fast');
  });
});
