/**
 * Allowed origins of public keys, and matching of `Origin` / `Referer`.
 *
 * An entry is an origin: `http(s)://host[:port]`, no path, query, fragment
 * or credentials. `*` may stand only as the whole leftmost label
 * (`https://*.example.com`) and matches exactly one label there:
 * `https://a.example.com`, not `https://example.com`, not
 * `https://a.b.example.com`, and never `https://a.example.com.evil.com`.
 * Scheme and port must match exactly (a missing port is the scheme's default).
 * Internationalised names are compared in their punycode form, as browsers
 * send them. Matching is by plain label comparison: no public-suffix list, so
 * `https://*.co.uk` is accepted as an entry and means what it says.
 */
import { domainToASCII } from 'node:url';

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

/**
 * An internationalised host in its ASCII (punycode) form, which is how
 * browsers send it in `Origin`; undefined when it cannot be converted.
 */
function asciiEntry(entry: string): string | undefined {
  const text = entry.trim().toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  const match = /^(https?:\/\/)(\*\.)?([^:/]+)(:\d{1,5})?$/.exec(text);
  if (!match) return undefined;
  const host = domainToASCII(match[3]);
  return host === '' ? undefined : `${match[1]}${match[2] ?? ''}${host}${match[4] ?? ''}`;
}

/** Parses an allowed-origin entry; undefined when it is not a valid entry. */
export function parseDomainEntry(entry: string): DomainEntry | undefined {
  const text = asciiEntry(entry);
  if (text === undefined) return undefined;
  const match = ENTRY_PATTERN.exec(text);
  if (!match) return undefined;
  const [, scheme, wildcard, host, portText] = match;
  const port = portText === undefined ? defaultPort(scheme) : Number(portText);
  if (port < 1 || port > 65535) return undefined;
  if (wildcard) {
    // A wildcard needs a registrable-looking base (`*.example.com`, not `*.com`)
    // and a name, not an address (`*.0.0.1` would match 127.0.0.1).
    if (!host.includes('.') || /^\d+$/.test(host.slice(host.lastIndexOf('.') + 1))) return undefined;
  }
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
