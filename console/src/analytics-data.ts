/**
 * The verification analytics as the console reads them
 * (GET get-verification-analytics, docs/analytics.md): a range fetched in
 * as many requests as keep each answer within the route's 1,000 rows (at
 * most 9 outcomes a bucket), the rows merged; and a CSV of what is shown.
 */
import type { ApiClient, components } from '../../client';
import { errorText } from '../../client';

export type AnalyticsRow = components['schemas']['VerificationAnalyticsResponse']['data'][number];
export type Granularity = 'minute' | 'hour' | 'day';

/** The periods a chart offers: 24 hours by minute, 30 days by hour, a year by day. */
export const PERIODS = {
  day: { label: 'last 24 hours, by minute', granularity: 'minute', span: 24 * 3_600_000 },
  month: { label: 'last 30 days, by hour', granularity: 'hour', span: 30 * 86_400_000 },
  year: { label: 'last 365 days, by day', granularity: 'day', span: 365 * 86_400_000 },
} as const satisfies Record<string, { label: string; granularity: Granularity; span: number }>;
export type Period = keyof typeof PERIODS;

const BUCKET_MS: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Buckets a request may hold when grouped by outcome: 9 outcomes each within 1,000 rows. */
const BUCKETS_PER_REQUEST = 111;

export interface AnalyticsQuery {
  readonly team_id: string;
  readonly key_id?: string;
  readonly group_by: Array<'outcome' | 'scope' | 'key'>;
  readonly limit?: string;
}

/** Every row of `query` over the period ending now, in order. */
export async function rowsOver(api: ApiClient, query: AnalyticsQuery, period: Period, now = Date.now()): Promise<AnalyticsRow[]> {
  const { granularity, span } = PERIODS[period];
  const size = BUCKET_MS[granularity];
  const first = Math.floor((now - span) / size) * size + size;
  const step = query.group_by.includes('key') ? span : size * BUCKETS_PER_REQUEST;
  const ranges: Array<[number, number]> = [];
  for (let from = first; from <= now; from += step) ranges.push([from, Math.min(from + step - 1, now)]);
  const pages = await Promise.all(
    ranges.map(async ([from, to]) => {
      const { data, error, response } = await api.GET('/functions/v1/get-verification-analytics', {
        params: { query: { ...query, from: new Date(from).toISOString(), to: new Date(to).toISOString(), granularity } },
        querySerializer: { array: { style: 'form', explode: true } },
      });
      if (!data) throw new Error(errorText(error, response.status));
      return data.data;
    }),
  );
  return pages.flat();
}

/** RFC 4180 CSV of `rows` with the columns named (a header line, then one line per row). */
export function csvOf(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]): string {
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value);
    return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))].join('\r\n') + '\r\n';
}

/** A link's `href` for `csv`, as a file to download. */
export function csvHref(csv: string): string {
  return `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`;
}
