/**
 * The chain's canonical JSON (domain/audit-chain.ts `canonicalJson`) is RFC
 * 8785: held to the `canonicalize` package (the RFC's reference
 * implementation for JavaScript) on the RFC's own examples and on 2,000
 * random JSON values, and hashes a record whatever the order of its fields.
 */
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson, recordHash } from '../../lambda/domain/audit-chain';

describe('canonicalJson', () => {
  it("writes RFC 8785's examples as the RFC does (§3.2.2 numbers and strings, §3.2.3 key order by UTF-16 code units)", () => {
    const numbersAndStrings = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(numbersAndStrings)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
    const keys = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const text = canonicalJson(keys);
    const positions = ['"\\r"', '"1"', '"\u0080"', '"\u00f6"', '"\u20ac"', '"\ud83d\ude00"', '"\ufb33"'].map((key) => text.indexOf(`${key}:`));
    expect(positions.every((position, at) => position >= 0 && (at === 0 || position > (positions[at - 1] as number)))).toBe(true);
    expect(canonicalJson(keys)).toBe(canonicalize(keys));
  });

  it('agrees with the canonicalize package on 2,000 random JSON values (seeded)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => canonicalJson(value) === canonicalize(value)),
      { numRuns: 2000, seed: 48 },
    );
  });

  it('gives a record the same hash whatever the order of its fields, and another for any change of a value', () => {
    const record = { event_id: 'E1', team_id: 't1', seq: 3, actor: { user_id: 'u', key_id: null }, changes: { name: { before: 'a', after: 'b' } } };
    const reordered = { changes: { name: { after: 'b', before: 'a' } }, actor: { key_id: null, user_id: 'u' }, seq: 3, team_id: 't1', event_id: 'E1' };
    expect(recordHash(reordered)).toBe(recordHash(record));
    expect(recordHash({ ...record, seq: 4 })).not.toBe(recordHash(record));
    expect(recordHash({ ...record, hash: 'ignored', pk: 'KEY#x', ttl: 1 })).toBe(recordHash(record));
  });
});
