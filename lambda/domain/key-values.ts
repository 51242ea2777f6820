/**
 * Key values: generation, shape checks, checksum and hashing.
 *
 * Shapes (see docs/key-format.md):
 * - created:     `svc_<type>_<env>_<label>_<random>`, label = first 8 hex digits of team_id
 * - regenerated: `<type>_<env>_<key id>_<random>`
 *
 * `<random>` is 22 base62 characters drawn from `crypto.randomBytes` (about
 * 131 bits) followed by a 6-character base62 CRC-32 checksum of everything
 * before it. A mistyped or truncated value fails the checksum and is refused
 * without a database read; a leaked value is easy to recognise in scans.
 *
 * Only `hashKeyValue(value)` is ever stored.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CHECKSUM_LENGTH, RANDOM_LENGTH, keyValuePattern } from '../contract/key-value-shape';

export { CHECKSUM_LENGTH, RANDOM_LENGTH, keyValuePattern };

export type KeyType = 'pk' | 'sk';
export type Environment = 'test' | 'live';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Length of `key_prefix` in the creation response. */
export const KEY_PREFIX_LENGTH = 20;

const CREATED_SHAPE = /^svc_(pk|sk)_(test|live)_([0-9a-f]{8})_([0-9A-Za-z]{28})$/;
const REGENERATED_SHAPE = /^(pk|sk)_(test|live)_([0-9A-HJKMNP-TV-Z]{26})_([0-9A-Za-z]{28})$/;

/** Uniform base62 characters by rejection sampling (no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would skew the distribution.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function base62Fixed(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** The 6-character checksum of the part of a value before it. */
export function checksumOf(body: string): string {
  return base62Fixed(crc32(body), CHECKSUM_LENGTH);
}

function withChecksum(body: string): string {
  return body + checksumOf(body);
}

/** The team label inside a created value: first 8 hex digits of the team UUID. */
export function teamLabel(teamId: string): string {
  return teamId.replace(/-/g, '').slice(0, 8).toLowerCase();
}

/** A new value for a key being created. */
export function generateCreatedValue(type: KeyType, environment: Environment, teamId: string): string {
  return withChecksum(`svc_${type}_${environment}_${teamLabel(teamId)}_${randomBase62(RANDOM_LENGTH)}`);
}

/** A new value for an existing key being regenerated. */
export function generateRegeneratedValue(type: KeyType, environment: Environment, keyId: string): string {
  return withChecksum(`${type}_${environment}_${keyId}_${randomBase62(RANDOM_LENGTH)}`);
}

const VALUE_ANYWHERE = keyValuePattern();

/**
 * Whether free text contains something shaped like an issued value (a key
 * pasted into a name, description or deletion reason). Such text is refused
 * so that no value ever reaches storage or the audit trail.
 */
export function containsKeyValue(text: string): boolean {
  return VALUE_ANYWHERE.test(text);
}

export interface ParsedKeyValue {
  readonly shape: 'created' | 'regenerated';
  readonly type: KeyType;
  readonly environment: Environment;
}

/**
 * Checks a presented value's shape and checksum, without any I/O.
 * Returns undefined for anything that cannot be a value this service issued.
 */
export function parseKeyValue(value: string): ParsedKeyValue | undefined {
  if (value.length > 128) return undefined;
  const created = CREATED_SHAPE.exec(value);
  const regenerated = created ? null : REGENERATED_SHAPE.exec(value);
  const match = created ?? regenerated;
  if (!match) return undefined;
  const body = value.slice(0, value.length - CHECKSUM_LENGTH);
  if (checksumOf(body) !== value.slice(-CHECKSUM_LENGTH)) return undefined;
  return {
    shape: created ? 'created' : 'regenerated',
    type: match[1] as KeyType,
    environment: match[2] as Environment,
  };
}

/**
 * The stored form of a value: SHA-256 hex, or HMAC-SHA256 hex under the
 * deployment's pepper when one is configured.
 */
export function hashKeyValue(value: string, pepper?: string): string {
  return pepper === undefined ? createHash('sha256').update(value, 'utf8').digest('hex') : createHmac('sha256', pepper).update(value, 'utf8').digest('hex');
}

/** `key_prefix` of the creation response: the first 20 characters. */
export function keyPrefixOf(value: string): string {
  return value.slice(0, KEY_PREFIX_LENGTH);
}

/** `key_info.key_prefix` of the regeneration response, e.g. `sk_live_`. */
export function shortPrefix(type: KeyType, environment: Environment): string {
  return `${type}_${environment}_`;
}

export function lastFourOf(value: string): string {
  return value.slice(-4);
}
