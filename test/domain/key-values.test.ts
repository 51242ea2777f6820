import { createHash, createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  KEY_PREFIX_LENGTH,
  RANDOM_LENGTH,
  checksumOf,
  containsKeyValue,
  generateCreatedValue,
  generateRegeneratedValue,
  hashKeyValue,
  keyPrefixOf,
  lastFourOf,
  parseKeyValue,
  shortPrefix,
  teamLabel,
} from '../../lambda/domain/key-values';
import { newKeyId, KEY_ID_PATTERN } from '../../lambda/platform/ids';

const TEAM = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

describe('key values', () => {
  it('creation shape: svc_<type>_<env>_<label>_<22 random + 6 checksum>, label from the team id', () => {
    const value = generateCreatedValue('sk', 'live', TEAM);
    expect(value).toMatch(/^svc_sk_live_1b4e28ba_[0-9A-Za-z]{28}$/);
    expect(teamLabel(TEAM)).toBe('1b4e28ba');
    expect(parseKeyValue(value)).toEqual({ shape: 'created', type: 'sk', environment: 'live' });
  });

  it('regeneration shape: <type>_<env>_<key id>_<random>', () => {
    const id = newKeyId();
    const value = generateRegeneratedValue('pk', 'test', id);
    expect(id).toMatch(KEY_ID_PATTERN);
    expect(value.startsWith(`pk_test_${id}_`)).toBe(true);
    expect(parseKeyValue(value)).toEqual({ shape: 'regenerated', type: 'pk', environment: 'test' });
    expect(shortPrefix('pk', 'test')).toBe('pk_test_');
  });

  it('key_prefix is the first 20 characters and last_four the last four', () => {
    const value = generateCreatedValue('pk', 'test', TEAM);
    expect(KEY_PREFIX_LENGTH).toBe(20);
    expect(keyPrefixOf(value)).toBe('svc_pk_test_1b4e28ba');
    expect(lastFourOf(value)).toBe(value.slice(-4));
  });

  it('carries at least 128 random bits', () => {
    expect(RANDOM_LENGTH * Math.log2(62)).toBeGreaterThanOrEqual(128);
    const values = new Set(Array.from({ length: 2000 }, () => generateCreatedValue('sk', 'live', TEAM)));
    expect(values.size).toBe(2000);
  });

  it('the checksum is the base62 CRC-32 of everything before it', () => {
    const value = generateCreatedValue('sk', 'live', TEAM);
    expect(value.slice(-6)).toBe(checksumOf(value.slice(0, -6)));
  });

  it('any single-character change is refused by the checksum or the shape, without I/O', () => {
    const value = generateCreatedValue('sk', 'live', randomUUID());
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_';
    fc.assert(
      fc.property(fc.nat(value.length - 1), fc.constantFrom(...alphabet), (index, replacement) => {
        fc.pre(value[index] !== replacement);
        const typo = value.slice(0, index) + replacement + value.slice(index + 1);
        return parseKeyValue(typo) === undefined;
      }),
      { numRuns: 2000 },
    );
  });

  it('truncated, extended and foreign strings are refused', () => {
    const value = generateCreatedValue('pk', 'live', TEAM);
    for (const bad of [value.slice(0, -1), `${value}x`, '', 'sk_live_x', value.toUpperCase(), `${value}\n`]) {
      expect({ bad, parsed: parseKeyValue(bad) }).toEqual({ bad, parsed: undefined });
    }
  });

  it('stores SHA-256 of the value, or HMAC-SHA256 under a pepper', () => {
    const value = generateCreatedValue('sk', 'live', TEAM);
    expect(hashKeyValue(value)).toBe(createHash('sha256').update(value).digest('hex'));
    expect(hashKeyValue(value, 'pepper')).toBe(createHmac('sha256', 'pepper').update(value).digest('hex'));
    expect(hashKeyValue(value, 'pepper')).not.toBe(hashKeyValue(value));
  });

  it('finds a value pasted inside free text', () => {
    const value = generateRegeneratedValue('sk', 'live', newKeyId());
    expect(containsKeyValue(`rotated because ${value} leaked`)).toBe(true);
    expect(containsKeyValue('rotated because svc_sk_live_ leaked')).toBe(false);
  });
});
