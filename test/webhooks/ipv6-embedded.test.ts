/**
 * Every IPv6 form that carries an IPv4 address is judged by the address it
 * carries, when an endpoint is stored (a literal in the URL) and when a
 * delivery connects (a name that resolves to it): IPv4-compatible
 * (`::a.b.c.d`), IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (SIIT,
 * `::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`) and Teredo
 * (`2001::/32`, server and inverted client). Before issue 43,
 * `[::a9fe:a9fe]` (169.254.169.254) passed by default and `[::7f00:1]`
 * (127.0.0.1) even with loopback refused.
 */
import { checkEndpointUrl, guardedLookup, refusedAddress } from '../../lambda/platform/webhook-address';
import type { AddressPolicy } from '../../lambda/platform/address-policy';

const STRICT: AddressPolicy = { httpsOnly: false, allowLoopback: false };
const LOCAL: AddressPolicy = { httpsOnly: false, allowLoopback: true };

/** The IPv4 address carried, and the verdict: `refused` (every policy), `loopback` (refused only where loopback is), `public` (reachable). */
type Verdict = 'refused' | 'loopback' | 'public';
const SPELLINGS: Array<[host: string, carries: string, verdict: Verdict]> = [
  // IPv4-compatible ::a.b.c.d
  ['::a9fe:a9fe', '169.254.169.254', 'refused'],
  ['::169.254.169.254', '169.254.169.254', 'refused'],
  ['0:0:0:0:0:0:A9FE:A9FE', '169.254.169.254', 'refused'],
  ['0::a9fe:a9fe', '169.254.169.254', 'refused'],
  ['::7f00:1', '127.0.0.1', 'loopback'],
  ['::127.0.0.1', '127.0.0.1', 'loopback'],
  ['::7f12:3456', '127.18.52.86', 'loopback'],
  ['::a00:1', '10.0.0.1', 'refused'],
  ['::c0a8:101', '192.168.1.1', 'refused'],
  ['::ac10:504', '172.16.5.4', 'refused'],
  ['::6440:1', '100.64.0.1', 'refused'],
  ['::e000:1', '224.0.0.1', 'refused'],
  ['::5db8:d70e', '93.184.215.14', 'public'],
  // IPv4-mapped ::ffff:a.b.c.d
  ['::ffff:a9fe:a9fe', '169.254.169.254', 'refused'],
  ['::ffff:169.254.169.254', '169.254.169.254', 'refused'],
  ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1', 'loopback'],
  ['::ffff:10.0.0.1', '10.0.0.1', 'refused'],
  ['::ffff:5db8:d70e', '93.184.215.14', 'public'],
  // IPv4-translated (SIIT) ::ffff:0:a.b.c.d
  ['::ffff:0:a9fe:a9fe', '169.254.169.254', 'refused'],
  ['::ffff:0:169.254.169.254', '169.254.169.254', 'refused'],
  ['::ffff:0:7f00:1', '127.0.0.1', 'loopback'],
  ['::ffff:0:c0a8:101', '192.168.1.1', 'refused'],
  ['::ffff:0:5db8:d70e', '93.184.215.14', 'public'],
  // NAT64 64:ff9b::/96
  ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'refused'],
  ['64:ff9b::169.254.169.254', '169.254.169.254', 'refused'],
  ['64:FF9B:0:0:0:0:7F00:1', '127.0.0.1', 'loopback'],
  ['64:ff9b::a00:1', '10.0.0.1', 'refused'],
  ['64:ff9b::c0a8:101', '192.168.1.1', 'refused'],
  ['64:ff9b::5db8:d70e', '93.184.215.14', 'public'],
  // 6to4 2002:a.b.c.d::/48
  ['2002:a9fe:a9fe::', '169.254.169.254', 'refused'],
  ['2002:a9fe:a9fe::1', '169.254.169.254', 'refused'],
  ['2002:a9fe:a9fe:1:2:3:4:5', '169.254.169.254', 'refused'],
  ['2002:7f00:1::', '127.0.0.1', 'loopback'],
  ['2002:7f00:1::1', '127.0.0.1', 'loopback'],
  ['2002:a00:1::', '10.0.0.1', 'refused'],
  ['2002:c0a8:101::1', '192.168.1.1', 'refused'],
  ['2002:5db8:d70e::1', '93.184.215.14', 'public'],
  // Teredo 2001:0:<server>:<flags>:<port>:<client inverted>
  ['2001:0:4136:e378:0:0:80ff:fffe', '127.0.0.1', 'loopback'],
  ['2001:0:4136:e378:0:0:5601:5601', '169.254.169.254', 'refused'],
  ['2001:0:a00:1:0:0:a247:28f1', '10.0.0.1', 'refused'],
  ['2001:0:a9fe:a9fe:0:0:a247:28f1', '169.254.169.254', 'refused'],
  ['2001:0:4136:e378:0:0:a247:28f1', '93.184.215.14', 'public'],
];

/** The verdicts under both policies: whether it passes strictly (AWS, WEBHOOK_ALLOW_LOOPBACK=false) and locally. */
const expected = (verdict: Verdict) => ({ strict: verdict === 'public', local: verdict !== 'refused' });

describe('IPv6 spellings of IPv4 addresses', () => {
  test('the table has at least 40 spellings, each form with public, loopback and inward rows', () => {
    expect(SPELLINGS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SPELLINGS.map(([, , verdict]) => verdict))).toEqual(new Set(['refused', 'loopback', 'public']));
  });

  test.each(SPELLINGS)('http://[%s]/ (carries %s): %s, when stored', (host, carries, verdict) => {
    const strict = checkEndpointUrl(`http://[${host}]/hook`, STRICT);
    const local = checkEndpointUrl(`http://[${host}]/hook`, LOCAL);
    expect({ strict: strict.ok, local: local.ok }).toEqual(expected(verdict));
    if (!strict.ok && verdict !== 'public') expect(strict.issue).toContain(`${carries} inside an IPv6 address`);
  });

  test.each(SPELLINGS)('a name resolving to %s (carries %s): %s, when a delivery connects', async (host, carries, verdict) => {
    const resolver = async () => [{ address: host.toLowerCase(), family: 6 }];
    const connect = (policy: AddressPolicy) =>
      new Promise<string>((resolve) => guardedLookup(resolver, policy)('receiver.example', {}, (error) => resolve(error ? 'refused' : 'connects')));
    expect({ strict: (await connect(STRICT)) === 'connects', local: (await connect(LOCAL)) === 'connects' }).toEqual(expected(verdict));
    if (verdict !== 'public') expect(refusedAddress(host, STRICT)).toContain(carries);
  });

  test('IPv6 itself: ::1 stays loopback, :: unspecified, a plain global address public, local-use NAT64 refused', () => {
    expect(refusedAddress('::1', STRICT)).toBe('resolves to a loopback address');
    expect(refusedAddress('::1', LOCAL)).toBeUndefined();
    expect(refusedAddress('::', LOCAL)).toBe('resolves to a unspecified address');
    expect(refusedAddress('2606:4700::1111', STRICT)).toBeUndefined();
    expect(refusedAddress('64:ff9b:1::5db8:d70e', LOCAL)).toBe('resolves to a reserved address (local-use NAT64)');
  });
});
