/**
 * What must never leave the process in a log line or an archived event:
 * issued key values and hex digests (a value's hash), found anywhere inside
 * a string, and whatever sits under a field whose name says it is a secret
 * (`authorization`, `key`, `new_value`, `x-api-key`, …).
 */
import { errorBody, type ApiError, type ErrorBody } from '../contract/errors';
import { CHECKSUM_LENGTH, RANDOM_LENGTH, keyValuePattern } from '../contract/key-value-shape';

/** What replaces a secret in a log line or an archived event. */
export const REDACTED = '[REDACTED]';

/** An issued value with its parts joined by anything (`_` as issued, `-`, `.`, a space, …). */
const KEY_VALUES_ANY_JOIN = keyValuePattern('g', '[^0-9A-Za-z]');
/**
 * A value's secret part on its own: 28 base62 characters (random and
 * checksum) between non-alphanumerics, with a digit, a lower- and an
 * upper-case letter (as all but a vanishing share of random tails have; ids,
 * digests and words of that length do not).
 */
const BARE_TAIL = new RegExp(`(?<![0-9A-Za-z])[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}(?![0-9A-Za-z])`, 'g');
const looksRandom = (text: string) => /[0-9]/.test(text) && /[a-z]/.test(text) && /[A-Z]/.test(text);

/** Key values in `text` (in any join, or as a bare tail) replaced. */
function hideKeyValueShapes(text: string): string {
  return text.replace(KEY_VALUES_ANY_JOIN, REDACTED).replace(BARE_TAIL, (tail) => (looksRandom(tail) ? REDACTED : tail));
}

/** `%XX` escapes decoded, up to three times over (never throws: a malformed escape stays as it is). */
function percentDecoded(text: string): string {
  let out = text;
  for (let round = 0; round < 3 && /%[0-9A-Fa-f]{2}/.test(out); round++) {
    out = out.replace(/%[0-9A-Fa-f]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  }
  return out;
}

/**
 * `text` without key values: found as issued, in any join, as a bare tail,
 * and percent-encoded (a path keeps its escapes). When only the decoded text
 * shows a value, the decoded text is returned with it replaced.
 */
function hideKeyValues(text: string): string {
  const hidden = hideKeyValueShapes(text);
  if (!text.includes('%')) return hidden;
  const decoded = percentDecoded(hidden);
  const decodedHidden = hideKeyValueShapes(decoded);
  return decodedHidden === decoded ? hidden : decodedHidden;
}

// Shapes of an issued value, of a SHA-256 / HMAC-SHA256 hex digest and of a Bearer credential, found anywhere inside a string.
const SECRET_SHAPES: readonly [RegExp, string][] = [
  [keyValuePattern('g'), REDACTED],
  [/(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])/g, REDACTED],
  [/\bBearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`],
];

/** Field names whose value is a secret whatever it looks like (compared in lower case). */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'x-origin-verify',
  'key',
  'value',
  'new_value',
  'api_key',
  'key_value',
  'key_hash',
  'hash',
  'pepper',
  'secret',
  'password',
  'token',
  'cookie',
  'set-cookie',
]);

/** `text` with every secret-shaped part replaced: values as issued, digests, Bearer credentials (what the audit archive applies). */
export function redactText(text: string): string {
  let out = text;
  for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
  return out;
}

/**
 * What a log line may hold of `text`: redactText, and key values in any
 * join, as bare tails and percent-encoded (a path or a header a caller
 * mangled on purpose).
 */
export function redactLogText(text: string): string {
  return redactText(hideKeyValues(text));
}

/** Whether a field of this name holds a secret whatever its value. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

/**
 * A `JSON.stringify` replacer: secret fields become `[REDACTED]`, strings
 * lose their secret-shaped parts. Used by the Logger for every line.
 */
export function redactingReplacer(name: string, value: unknown): unknown {
  if (name !== '' && isSecretField(name) && value !== undefined && value !== null) return REDACTED;
  if (typeof value === 'string') return redactLogText(value);
  return value;
}

/**
 * The body of an error as it may leave the process. A message or detail can
 * echo what the request carried (an unknown field's name, a path, a
 * Content-Type); when that holds a key value, the value is replaced: a key
 * value is never in an error, even one sent back to whoever sent it.
 */
export function errorBodyWithoutKeyValues(error: ApiError, requestId: string): ErrorBody {
  const body = errorBody(error, requestId);
  body.error.message = withoutKeyValues(body.error.message);
  body.error.details = body.error.details.map((detail) => ({ field: withoutKeyValues(detail.field), issue: withoutKeyValues(detail.issue) }));
  return body;
}

/** `text` with every key value in it replaced by [REDACTED] (and nothing else: unlike redactText, a digest or "Bearer" stays). */
export function withoutKeyValues(text: string): string {
  return hideKeyValues(text);
}

/**
 * A copy of `value` in which every string is as `redactText` leaves it,
 * with the paths of what changed; top-level fields named in `keep` are
 * copied as they are.
 */
export function redactStrings<T>(value: T, keep: readonly string[] = []): { value: T; redactedPaths: string[] } {
  const redactedPaths: string[] = [];
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string') {
      const clean = redactText(node);
      if (clean !== node) redactedPaths.push(at || '(root)');
      return clean;
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, `${at}[${index}]`));
    if (typeof node === 'object' && node !== null) {
      const out: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(node)) out[name] = at === '' && keep.includes(name) ? child : walk(child, at ? `${at}.${name}` : name);
      return out;
    }
    return node;
  };
  return { value: walk(value, '') as T, redactedPaths };
}
