import * as z from 'zod';
import { KEY_ID_PATTERN } from '../../platform/ids';
import { containsKeyValue } from '../../keys/key-values';

/** A key id as issued (ULID). */
export const keyIdSchema = z
  .string({ error: 'must be a string' })
  .regex(KEY_ID_PATTERN, 'must be a 26-character key id (ULID)');

/** Free text: control characters other than tab and newlines are refused. */
export function text(max: number) {
  return z
    .string({ error: 'must be a string' })
    // eslint-disable-next-line no-control-regex
    .refine((value) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value), 'must not contain control characters')
    .refine((value) => value.length <= max, `must be at most ${max} characters`)
    .refine((value) => !containsKeyValue(value), 'must not contain an API key value');
}
