/** The request fields the identity routes share. */
import * as z from 'zod/mini';
import { KEY_ID_PATTERN } from '../../platform/ids';
import { containsKeyValue } from '../../domain/key-values';
import { MAX_EXTERNAL_ID_LENGTH, MAX_META_BYTES } from '../../domain/identities';
import { text } from './common';

const IDENTITY_ID_WORDS = 'must be a 26-character identity id (ULID)';
export const identityIdSchema = z
  .string({ error: 'must be a string' })
  .check(z.maxLength(26, { error: IDENTITY_ID_WORDS, abort: true }), z.regex(KEY_ID_PATTERN, IDENTITY_ID_WORDS));

/** The platform's own id of the identity (a user, an organisation): unique in the team. */
export const externalIdSchema = text(MAX_EXTERNAL_ID_LENGTH).check(z.minLength(1, 'must not be empty'));

const META_WORDS = `must be a JSON object of at most ${MAX_META_BYTES} bytes`;
/** Metadata the platform reads back: a JSON object of at most 4 KB, holding no key value. */
export const metaSchema = z.record(z.string().check(z.maxLength(255, 'must be a name of at most 255 characters')), z.unknown(), { error: META_WORDS }).check(
  z.refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_META_BYTES, { error: META_WORDS, abort: true }),
  z.refine((value) => !containsKeyValue(JSON.stringify(value)), 'must not contain an API key value'),
);
z.globalRegistry.add(metaSchema, { description: `A JSON object of at most ${MAX_META_BYTES} bytes (as JSON)`, maxProperties: 100 });
