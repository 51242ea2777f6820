/**
 * What must never leave the process in a log line or an archived event:
 * issued key values and hex digests (a value's hash), found anywhere inside
 * a string, and whatever sits under a field whose name says it is a secret
 * (`authorization`, `key`, `new_value`, `x-api-key`, …).
 */
import { errorBody, type ApiError, type ErrorBody } from '../contract/errors';
import { keyValuePattern } from '../contract/key-value-shape';

/** What replaces a secret in a log line or an archived event. */
export const REDACTED = '[REDACTED]';

// Shapes of issued values, of a SHA-256 / HMAC-SHA256 hex digest and of a
// Bearer credential, found anywhere inside a string.
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

/** `text` with every secret-shaped part replaced. */
export function redactText(text: string): string {
  let out = text;
  for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
  return out;
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
  if (typeof value === 'string') return redactText(value);
  return value;
}

const KEY_VALUES = keyValuePattern('g');

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
  return text.replace(KEY_VALUES, REDACTED);
}
