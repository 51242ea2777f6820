/** What the console's time charts share (uPlot): a width that fits the holder, the height, a time axis in UTC, the value axis's label. */
import uPlot from 'uplot';

export function utcTimeChart(holder: HTMLElement, valueLabel: string): Pick<uPlot.Options, 'width' | 'height' | 'scales' | 'tzDate' | 'axes'> {
  return {
    width: Math.max(320, Math.min(holder.clientWidth || 720, 900)),
    height: 220,
    scales: { x: { time: true } },
    // Buckets are UTC minutes, hours and days: ticks and labels in UTC, not the browser's zone (which would shift them by its offset).
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    axes: [{}, { label: valueLabel, size: 60 }],
  };
}
