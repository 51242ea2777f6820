/**
 * A key's verifications by outcome (docs/analytics.md), over the last 24
 * hours by minute, 30 days by hour or a year by day: a uPlot chart with a
 * line per outcome seen, the numbers as a table for screen readers, and the
 * rows shown as a CSV download.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { ApiClient } from '../../client';
import { number } from './format';
import { utcTimeChart } from './utc-chart';
import { ChartNumbers } from './chart-numbers';
import { PERIODS, csvHref, csvOf, rowsOver, type AnalyticsRow, type Period } from './analytics-data';
import 'uplot/dist/uPlot.min.css';

/** A colour per outcome, distinct to the eye and each at least 3:1 against white. */
const COLOURS: Record<string, string> = {
  VALID: '#1f5fbf',
  RATE_LIMITED: '#b35900',
  USAGE_EXCEEDED: '#8a3ab9',
  SCOPE_DENIED: '#c0392b',
  IP_NOT_ALLOWED: '#6b5b00',
  ORIGIN_NOT_ALLOWED: '#00707a',
  INACTIVE: '#555555',
  EXPIRED: '#7a4b00',
  REVOKED: '#a1004f',
};

function Chart({ rows, period }: { rows: readonly AnalyticsRow[]; period: Period }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current || rows.length === 0) return;
    const starts = [...new Set(rows.map((row) => Date.parse(row.start)))].sort((a, b) => a - b);
    const outcomes = [...new Set(rows.map((row) => row.outcome as string))].sort();
    const index = new Map(starts.map((start, at) => [start, at]));
    const series = outcomes.map((outcome) => {
      const counts = starts.map(() => 0);
      for (const row of rows) if (row.outcome === outcome) counts[index.get(Date.parse(row.start)) as number] = row.count;
      return counts;
    });
    const chart = new uPlot(
      {
        ...utcTimeChart(holder.current, 'verifications'),
        series: [{}, ...outcomes.map((outcome) => ({ label: outcome, stroke: COLOURS[outcome] ?? '#333333', width: 2 }))],
      },
      [starts.map((start) => start / 1000), ...series],
      holder.current,
    );
    return () => chart.destroy();
  }, [rows, period]);
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  return <div ref={holder} role="img" aria-label={`Verifications by outcome, ${PERIODS[period].label}: ${total} in all`} />;
}

/** Totals by outcome over the period. */
function totals(rows: readonly AnalyticsRow[]): Array<[string, number]> {
  const by = new Map<string, number>();
  for (const row of rows) by.set(row.outcome as string, (by.get(row.outcome as string) ?? 0) + row.count);
  return [...by.entries()].sort((a, b) => b[1] - a[1]);
}

export function VerificationChart({ api, teamId, keyId }: { api: ApiClient; teamId: string; keyId: string }) {
  const [period, setPeriod] = useState<Period>('day');
  const [rows, setRows] = useState<AnalyticsRow[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    setRows(undefined);
    setProblem(undefined);
    rowsOver(api, { team_id: teamId, key_id: keyId, group_by: ['outcome'] }, period)
      .then((found) => current && setRows(found))
      .catch((error: unknown) => current && setProblem((error as Error).message));
    return () => {
      current = false;
    };
  }, [api, teamId, keyId, period]);
  const shown = rows ?? [];
  return (
    <section aria-labelledby="verifications-title">
      <h2 id="verifications-title">Verifications</h2>
      <label for="verification-period">Period</label>{' '}
      <select id="verification-period" value={period} onChange={(event) => setPeriod((event.target as HTMLSelectElement).value as Period)}>
        {(Object.keys(PERIODS) as Period[]).map((name) => (
          <option key={name} value={name}>
            {PERIODS[name].label}
          </option>
        ))}
      </select>
      {problem ? (
        <p role="alert">{problem}</p>
      ) : rows === undefined ? (
        <p>Loading…</p>
      ) : (
        <figure class="chart" data-testid="verification-chart">
          {rows.length > 0 ? <Chart rows={shown} period={period} /> : null}
          <figcaption>
            {rows.length === 0
              ? 'No verifications'
              : totals(shown)
                  .map(([outcome, n]) => `${outcome} ${number(n)}`)
                  .join(', ')}{' '}
            ({PERIODS[period].label}, UTC).{' '}
            <a download={`verifications-${keyId}-${period}.csv`} href={csvHref(csvOf(shown, ['start', 'outcome', 'count']))}>
              Download CSV
            </a>
            <ChartNumbers headings={['Start (UTC)', 'Outcome', 'Verifications']} rows={shown.map((row) => [row.start, row.outcome as string, row.count])} />
          </figcaption>
        </figure>
      )}
    </section>
  );
}
