/**
 * The team's verifications over the last 30 days (docs/analytics.md): the
 * busiest keys, the share refused (by outcome), and the keys nobody used
 * (no use in 30 days, from each key's own `last_used_at`), each with its
 * rows as a CSV download.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApiClient, ApiKey } from '../../client';
import { errorText } from '../../client';
import { csvHref, csvOf, type AnalyticsRow } from './analytics-data';
import { number, when } from './format';
import type { Session } from './session';
import { ColumnHeads } from './chart-numbers';

const DAYS = 30;

interface TeamFigures {
  busiest: Array<{ key_id: string; verifications: number }>;
  outcomes: Array<{ outcome: string; verifications: number; share: string }>;
  idle: Array<{ key_id: string; name: string; last_used_at: string }>;
}

async function rowsOf(api: ApiClient, teamId: string, groupBy: Array<'key' | 'outcome'>, now: number): Promise<AnalyticsRow[]> {
  const { data, error, response } = await api.GET('/functions/v1/get-verification-analytics', {
    params: {
      query: {
        team_id: teamId,
        from: new Date(now - DAYS * 86_400_000).toISOString(),
        to: new Date(now).toISOString(),
        granularity: 'day',
        group_by: groupBy,
        limit: '10',
      },
    },
  });
  if (!data) throw new Error(errorText(error, response.status));
  return data.data;
}

function sumBy(rows: readonly AnalyticsRow[], field: 'key_id' | 'outcome'): Array<[string, number]> {
  const by = new Map<string, number>();
  for (const row of rows) by.set(row[field] as string, (by.get(row[field] as string) ?? 0) + row.count);
  return [...by.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

async function teamFigures(api: ApiClient, teamId: string): Promise<TeamFigures> {
  const now = Date.now();
  const [byKey, byOutcome, keys] = await Promise.all([
    rowsOf(api, teamId, ['key'], now),
    rowsOf(api, teamId, ['outcome'], now),
    api.GET('/functions/v1/list-api-keys', { params: { query: { team_id: teamId, state: 'active', limit: '100' } } }),
  ]);
  if (!keys.data) throw new Error(errorText(keys.error, keys.response.status));
  const total = byOutcome.reduce((sum, row) => sum + row.count, 0);
  const since = now - DAYS * 86_400_000;
  return {
    busiest: sumBy(byKey, 'key_id').map(([key_id, verifications]) => ({ key_id, verifications })),
    outcomes: sumBy(byOutcome, 'outcome').map(([outcome, verifications]) => ({
      outcome,
      verifications,
      share: `${((verifications * 100) / total).toFixed(1)} %`,
    })),
    idle: keys.data.data
      .filter((key: ApiKey) => key.last_used_at === null || Date.parse(key.last_used_at) < since)
      .map((key: ApiKey) => ({ key_id: key.id, name: key.name, last_used_at: key.last_used_at ?? 'never' })),
  };
}

function Table({ caption, columns, rows, file }: { caption: string; columns: string[]; rows: Array<Record<string, unknown>>; file: string }) {
  return (
    <>
      <table>
        <caption>{caption}</caption>
        <ColumnHeads columns={columns} />
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {columns.map((column) => (
                <td key={column}>{column === 'key_id' ? <a href={`#/keys/${String(row[column])}`}>{String(row[column])}</a> : String(row[column])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <a download={file} href={csvHref(csvOf(rows, columns))}>
          Download CSV: {caption.toLowerCase()}
        </a>
      </p>
    </>
  );
}

export function TeamAnalytics({ api, session }: { api: ApiClient; session: Session }) {
  const [figures, setFigures] = useState<TeamFigures | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    teamFigures(api, session.teamId)
      .then((found) => current && setFigures(found))
      .catch((error: unknown) => current && setProblem((error as Error).message));
    return () => {
      current = false;
    };
  }, [api, session.teamId]);
  const refused = figures?.outcomes.filter((row) => row.outcome !== 'VALID').reduce((sum, row) => sum + row.verifications, 0) ?? 0;
  const total = figures?.outcomes.reduce((sum, row) => sum + row.verifications, 0) ?? 0;
  return (
    <main>
      <h1>Analytics</h1>
      <p>Verifications of the team’s keys over the last {DAYS} days (UTC days; counts are written within 20 s).</p>
      {problem ? <p role="alert">{problem}</p> : null}
      {figures === undefined ? (
        problem ? null : (
          <p aria-live="polite">Loading…</p>
        )
      ) : (
        <div data-testid="team-analytics">
          <h2>Refused</h2>
          <p>
            {number(refused)} of {number(total)} verifications refused{total > 0 ? ` (${((refused * 100) / total).toFixed(1)} %)` : ''}.
          </p>
          <Table caption="By outcome" columns={['outcome', 'verifications', 'share']} rows={figures.outcomes} file="verifications-by-outcome.csv" />
          <h2>Busiest keys</h2>
          <Table caption="The 10 busiest keys" columns={['key_id', 'verifications']} rows={figures.busiest} file="busiest-keys.csv" />
          <h2>Idle keys</h2>
          <p>
            Active keys with no use in {DAYS} days (the first 100 active keys; `last_used_at` of each, as of {when(new Date().toISOString())}).
          </p>
          <Table caption="Idle keys" columns={['key_id', 'name', 'last_used_at']} rows={figures.idle} file="idle-keys.csv" />
        </div>
      )}
    </main>
  );
}
