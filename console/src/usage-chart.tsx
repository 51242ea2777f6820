/** A key's requests per day (uPlot: a small, maintained canvas chart library), with the numbers as a table for screen readers. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { number } from './format';
import { utcTimeChart } from './utc-chart';
import { ChartNumbers } from './chart-numbers';
import 'uplot/dist/uPlot.min.css';

export function UsageChart({ daily }: { daily: ReadonlyArray<{ date: string; requests: number }> }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current) return;
    const chart = new uPlot(
      {
        ...utcTimeChart(holder.current, 'requests'),
        series: [{}, { label: 'requests', stroke: '#1f5fbf', fill: 'rgba(31, 95, 191, 0.15)', width: 2 }],
        legend: { show: false },
      },
      [daily.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000), daily.map((day) => day.requests)],
      holder.current,
    );
    return () => chart.destroy();
  }, [daily]);
  const total = daily.reduce((sum, day) => sum + day.requests, 0);
  return (
    <figure class="chart">
      <div ref={holder} role="img" aria-label={`Requests per day over the last ${daily.length} days: ${total} in all`} />
      <figcaption>
        Requests per day, last {daily.length} days (UTC): {number(total)} in all.
        <ChartNumbers headings={['Day', 'Requests']} rows={daily.map((day) => [day.date, day.requests])} />
      </figcaption>
    </figure>
  );
}
