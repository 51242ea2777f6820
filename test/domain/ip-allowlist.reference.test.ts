/**
 * lambda/domain/ip-allowlist.ts (node:net) agrees with the ipaddr.js
 * implementation it replaced on every function, over random IPv4 and IPv6
 * text in its many spellings, blocks with any prefix, and garbage: stored
 * entries, allow-list answers and guess-limit buckets stay byte-identical.
 */
import fc from 'fast-check';
import * as next from '../../lambda/domain/ip-allowlist';
import * as reference from './ip-allowlist-ipaddr';

const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 12) * 25, seed: 20261126 };

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const group = fc.integer({ min: 0, max: 0xffff });
/** IPv6 text in many spellings: full, leading zeros, upper case, `::` anywhere, an IPv4 tail, mapped. */
const ipv6 = fc
  .tuple(
    fc.array(fc.oneof(group, fc.constant(0), fc.constant(0)), { minLength: 8, maxLength: 8 }),
    fc.integer({ min: -1, max: 7 }),
    fc.integer({ min: 0, max: 8 }),
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom('plain', 'mapped', 'ipv4-tail'),
    ipv4,
  )
  .map(([groups, from, length, upper, padded, form, tail]) => {
    let parts = groups.map((g) => (padded ? g.toString(16).padStart(4, '0') : g.toString(16)));
    if (form === 'mapped')
      parts = [
        '0',
        '0',
        '0',
        '0',
        '0',
        'ffff',
        ...tail.split('.').reduce<string[]>((acc, _, i, all) => (i % 2 ? acc : [...acc, ((Number(all[i]) << 8) | Number(all[i + 1])).toString(16)]), []),
      ];
    let text = parts.join(':');
    if (form === 'ipv4-tail') text = `${parts.slice(0, 6).join(':')}:${tail}`;
    if (from >= 0 && form !== 'ipv4-tail') {
      const end = Math.min(8, from + Math.max(2, length));
      if (parts.slice(from, end).every((p) => /^0+$/.test(p))) text = `${parts.slice(0, from).join(':')}::${parts.slice(end).join(':')}`;
    }
    return upper ? text.toUpperCase() : text;
  });
const garbage = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '10',
    '0x0a.1',
    '1.2.3',
    '01.2.3.4',
    '256.1.1.1',
    'fe80::1%eth0',
    '::',
    '::1',
    '1::',
    ':::',
    '1.2.3.4/',
    '/8',
    ' 10.0.0.1 ',
    '1:2:3:4:5:6:7:8:9',
  ),
);
const address = fc.oneof(ipv4, ipv6, garbage);
const entry = fc.oneof(
  address,
  fc.tuple(fc.oneof(ipv4, ipv6), fc.integer({ min: 0, max: 140 })).map(([a, p]) => `${a}/${p}`),
  fc.tuple(address, fc.string({ maxLength: 4 })).map(([a, p]) => `${a}/${p}`),
);

describe('ip-allowlist on node:net agrees with ipaddr.js', () => {
  it('normalises every entry to the same text (or refuses it alike)', () => {
    fc.assert(
      fc.property(entry, (text) => {
        expect({ text, entry: next.normaliseIpEntry(text) }).toEqual({ text, entry: reference.normaliseIpEntry(text) });
      }),
      RUNS,
    );
  });

  it('buckets every source alike, and reads one address alike', () => {
    fc.assert(
      fc.property(address, (text) => {
        expect({ text, bucket: next.sourceBucketOf(text) }).toEqual({ text, bucket: reference.sourceBucketOf(text) });
        expect({ text, address: next.canonicalAddress(text) }).toEqual({ text, address: reference.canonicalAddress(text) });
      }),
      RUNS,
    );
  });

  it('allows the same sources for the same entries', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 4 }), address, (entries, source) => {
        expect({ entries, source, allowed: next.ipAllowed(entries, source) }).toEqual({ entries, source, allowed: reference.ipAllowed(entries, source) });
      }),
      RUNS,
    );
  });

  it('allows a source inside a block it was drawn from (not only refusals agree)', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4, ipv6), fc.integer({ min: 0, max: 32 }), (source, prefix) => {
        const block = `${source}/${source.includes(':') && !next.canonicalAddress(source)?.includes('.') ? prefix * 4 : prefix}`;
        fc.pre(next.normaliseIpEntry(block) !== undefined);
        expect(next.ipAllowed([block], source)).toBe(true);
        expect(reference.ipAllowed([block], source)).toBe(true);
      }),
      RUNS,
    );
  });
});
