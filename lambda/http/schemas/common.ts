/**
 * Request schemas use zod's tree-shakable `zod/mini` API (functions instead
 * of methods): a bundle keeps only the checks it uses, and no locale (every
 * message a caller can see is written here). About 70 KB smaller and a few
 * milliseconds faster to load than the classic API (docs/performance.md).
 */
import * as z from 'zod/mini';
import { KEY_ID_PATTERN } from '../../platform/ids';
import { containsKeyValue } from '../../domain/key-values';

/** A key id as issued (ULID). */
export const keyIdSchema = z.string({ error: 'must be a string' }).check(z.regex(KEY_ID_PATTERN, 'must be a 26-character key id (ULID)'));

/** A team id: a UUID, lower-cased. */
export const teamIdSchema = then(z.guid({ error: 'must be a UUID' }), (value) => value.toLowerCase());

/** A UTF-16 surrogate without its pair: not text, and unsafe to store or echo. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Bidirectional embeddings, overrides and isolates: they make text display otherwise than it reads (Trojan Source). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * Free text: control characters other than tab and newlines, unpaired
 * surrogates and bidirectional controls are refused.
 */
export function text(max: number) {
  return z.string({ error: 'must be a string' }).check(
    // eslint-disable-next-line no-control-regex
    z.refine((value) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value), 'must not contain control characters'),
    z.refine((value) => !LONE_SURROGATE.test(value), 'must not contain an unpaired UTF-16 surrogate'),
    z.refine((value) => !BIDI_CONTROL.test(value), 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)'),
    z.refine((value) => value.length <= max, `must be at most ${max} characters`),
    z.refine((value) => !containsKeyValue(value), 'must not contain an API key value'),
  );
}

/** `schema`'s output passed through `transform`. */
export function then<In extends z.core.SomeType, Out>(schema: In, transform: (value: z.output<In>) => Out) {
  return z.pipe(schema, z.transform(transform));
}

/* Query parameters: query values are strings, so numbers are written as digits. */

/** A whole number written in digits, within [min, max]; `fallback` when absent. */
export function countParameter(min: number, max: number, fallback: number) {
  const words = `must be a whole number from ${min} to ${max}`;
  return then(
    z.optional(
      z.pipe(
        then(z.string({ error: 'must be a number' }).check(z.regex(/^[0-9]{1,6}$/, words)), Number),
        z.int().check(z.minimum(min, words), z.maximum(max, words)),
      ),
    ),
    (value) => value ?? fallback,
  );
}

/** An opaque cursor from a previous page. */
export const cursorParameter = z.optional(
  z.string({ error: 'must be a cursor' }).check(z.minLength(1, 'must be a cursor'), z.maxLength(2048, 'must be a cursor')),
);
