/**
 * Allowed origins of public keys, and matching of `Origin` / `Referer`.
 *
 * An entry is an origin: `http(s)://host[:port]`, no path, query, fragment
 * or credentials. `*` may stand only as the whole leftmost label
 * (`https://*.example.com`) and matches exactly one label there:
 * `https://a.example.com`, not `https://example.com`, not
 * `https://a.b.example.com`, and never `https://a.example.com.evil.com`.
 * Scheme and port must match exactly (a missing port is the scheme's default).
 */

const LABEL = '(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)';
const HOST = `(?:${LABEL}(?:\\.${LABEL})*)`;
const ENTRY_PATTERN = new RegExp(`^(https?)://(\\*\\.)?(${HOST})(?::(\\d{1,5}))?$`);

export interface DomainEntry {
  readonly scheme: 'http' | 'https';
  readonly wildcard: boolean;
  /** Host without the wildcard label, lowercase. */
  readonly host: string;
  readonly port: number;
}

function defaultPort(scheme: string): number {
  return scheme === 'https' ? 443 : 80;
}

/** Parses an allowed-origin entry; undefined when it is not a valid entry. */
export function parseDomainEntry(entry: string): DomainEntry | undefined {
  const match = ENTRY_PATTERN.exec(entry.trim().toLowerCase());
  if (!match) return undefined;
  const [, scheme, wildcard, host, portText] = match;
  const port = portText === undefined ? defaultPort(scheme) : Number(portText);
  if (port < 1 || port > 65535) return undefined;
  // A wildcard needs at least a registrable-looking base (`*.example.com`, not `*.com`).
  if (wildcard && !host.includes('.')) return undefined;
  return { scheme: scheme as 'http' | 'https', wildcard: Boolean(wildcard), host, port };
}

/** The normalised spelling of a valid entry (lowercase, default port dropped). */
export function normaliseDomainEntry(entry: string): string | undefined {
  const parsed = parseDomainEntry(entry);
  if (!parsed) return undefined;
  const port = parsed.port === defaultPort(parsed.scheme) ? '' : `:${parsed.port}`;
  return `${parsed.scheme}://${parsed.wildcard ? '*.' : ''}${parsed.host}${port}`;
}

interface Origin {
  scheme: string;
  host: string;
  port: number;
}

/** Parses the origin part of an `Origin` header or a `Referer` URL. */
export function originOf(url: string): Origin | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const host = parsed.hostname.toLowerCase();
  if (!host) return undefined;
  const port = parsed.port === '' ? defaultPort(scheme) : Number(parsed.port);
  return { scheme, host, port };
}

function entryMatches(entry: DomainEntry, origin: Origin): boolean {
  if (entry.scheme !== origin.scheme || entry.port !== origin.port) return false;
  if (!entry.wildcard) return entry.host === origin.host;
  const suffix = `.${entry.host}`;
  if (!origin.host.endsWith(suffix)) return false;
  const label = origin.host.slice(0, -suffix.length);
  return label.length > 0 && !label.includes('.');
}

/** Whether the URL's origin is allowed by any of the entries. */
export function originAllowed(entries: readonly string[], url: string): boolean {
  const origin = originOf(url);
  if (!origin) return false;
  return entries.some((text) => {
    const entry = parseDomainEntry(text);
    return entry !== undefined && entryMatches(entry, origin);
  });
}
