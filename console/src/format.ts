/** How the console shows dates, counts and key fingerprints. */

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}

/** An ISO timestamp as the value of a `datetime-local` input, in UTC like every time the console shows; '' for none. */
export function utcInputValue(iso: string | null | undefined): string {
  return iso ? new Date(iso).toISOString().slice(0, 16) : '';
}

/** A `datetime-local` input's value (`2027-01-31T09:30`, seconds optional) read as UTC: ISO 8601 with the zone, as the API wants it. */
export function fromUtcInput(text: string): string {
  return text.length === 16 ? `${text}:00Z` : `${text}Z`;
}

/** A number with thousands separators: 12,345. */
export function number(n: number): string {
  return n.toLocaleString('en-US');
}

/** The noun for `n` of it: 1 request, 0 requests, 2 requests. */
export function noun(n: number, singular: string): string {
  return n === 1 ? singular : `${singular}s`;
}

/** A count with its noun: "1 request", "12,345 requests". */
export function count(n: number, singular: string): string {
  return `${number(n)} ${noun(n, singular)}`;
}

export function fingerprint(key: { key_prefix: string; last_four: string }): string {
  return `${key.key_prefix}…${key.last_four}`;
}

export function list(values: readonly string[]): string {
  return values.length === 0 ? '—' : values.join(', ');
}

/** Comma- or newline-separated entries, trimmed, empty ones dropped. */
export function entries(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
