/** How the console shows dates, counts and key fingerprints. */

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
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
