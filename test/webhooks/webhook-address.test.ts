/**
 * Where a webhook may go: the scheme and the literal address are checked
 * before any name lookup, in every spelling of an address; a name is checked
 * again at connect time through a stubbed resolver (DNS rebinding), so no
 * test sends a packet anywhere but loopback.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkEndpointHost, checkEndpointUrl, guardedLookup, refusedAddress } from '../../lambda/platform/webhook-address';
import type { AddressPolicy, Resolver } from '../../lambda/platform/address-policy';
import { httpPoster } from '../../lambda/adapters/webhook-transport';

const AWS: AddressPolicy = { httpsOnly: true, allowLoopback: false };
const LOCAL_STRICT: AddressPolicy = { httpsOnly: false, allowLoopback: false };
const LOCAL: AddressPolicy = { httpsOnly: false, allowLoopback: true };

const LOOPBACK_SPELLINGS = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://0177.0.0.1/',
  'http://127.255.255.254/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://api.localhost/',
];
const INWARD = [
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://0xa9fea9fe/',
  'http://[fe80::1]/',
  'http://[fd00:ec2::254]/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://[::ffff:10.0.0.1]/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
];

describe('checkEndpointUrl', () => {
  it.each(LOOPBACK_SPELLINGS)('%s is refused with WEBHOOK_ALLOW_LOOPBACK=false and in AWS, allowed locally by default', (url) => {
    expect(checkEndpointUrl(url, LOCAL_STRICT).ok).toBe(false);
    expect(checkEndpointUrl(url.replace('http:', 'https:'), AWS).ok).toBe(false);
    expect(checkEndpointUrl(url, LOCAL).ok).toBe(true);
  });

  it.each(INWARD)('%s (private, link-local, unique-local, unspecified, shared, multicast) is refused everywhere', (url) => {
    expect(checkEndpointUrl(url, LOCAL).ok).toBe(false);
    expect(checkEndpointUrl(url.replace('http:', 'https:'), AWS).ok).toBe(false);
  });

  it.each([
    ['ftp://example.com/', 'must use http or https'],
    ['file:///etc/passwd', 'must use http or https'],
    ['javascript:alert(1)', 'must use http or https'],
    ['garbage', 'must be an absolute http(s) URL'],
    ['http://user:secret@example.com/', 'must not carry user information (user:password@)'],
    ['http://example.com/#frag', 'must not carry a fragment (#…)'],
  ])('%s → %s', (url, issue) => {
    expect(checkEndpointUrl(url, LOCAL)).toEqual({ ok: false, issue });
  });

  it('AWS takes https to a public name or address only', () => {
    expect(checkEndpointUrl('http://hooks.example.com/in', AWS)).toEqual({ ok: false, issue: 'must use https' });
    expect(checkEndpointUrl('https://hooks.example.com/in', AWS).ok).toBe(true);
    expect(checkEndpointUrl('https://93.184.215.14/in', AWS).ok).toBe(true);
  });

  it('reads IPv4-mapped IPv6 as the address it maps', () => {
    expect(refusedAddress('::ffff:127.0.0.1', LOCAL_STRICT)).toBe('resolves to a loopback address (127.0.0.1 inside an IPv6 address)');
    expect(refusedAddress('::ffff:169.254.169.254', LOCAL)).toBe('resolves to a link-local address (169.254.169.254 inside an IPv6 address)');
    expect(refusedAddress('93.184.215.14', AWS)).toBeUndefined();
  });
});

describe('the names of endpoints, when they are stored', () => {
  it('must resolve, and only to addresses the policy allows (the literal ones were checked without a lookup)', async () => {
    const resolver: Resolver = async (hostname) => {
      if (hostname === 'public.example') return [{ address: '93.184.215.14', family: 4 }];
      if (hostname === 'dual.example')
        return [
          { address: '93.184.215.14', family: 4 },
          { address: 'fd00::7', family: 6 },
        ];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    let lookups = 0;
    const counting: Resolver = async (hostname) => {
      lookups += 1;
      return resolver(hostname);
    };
    const host = (url: string) => checkEndpointHost(new URL(url), AWS, counting);
    expect(await host('https://public.example/hook')).toBeUndefined();
    expect(await host('https://dual.example/hook')).toBe('must not name a host that resolves to a unique-local address');
    expect(await host('https://gone.example/hook')).toBe('must name a host that resolves (ENOTFOUND)');
    expect(lookups).toBe(3);
    expect(await host('https://93.184.215.14/hook')).toBeUndefined();
    expect(lookups).toBe(3);
  });
});

describe('connect-time check (DNS rebinding)', () => {
  it('a name that resolves to any inward address is refused when connecting, though it passed when stored', async () => {
    // Prepare: a name that was public when stored and now answers with the metadata address
    let answers = [{ address: '93.184.215.14', family: 4 }];
    const resolver: Resolver = async () => answers;
    expect(checkEndpointUrl('https://rebind.example/hook', AWS).ok).toBe(true);
    answers = [
      { address: '93.184.215.14', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ];
    const lookup = guardedLookup(resolver, AWS);

    // Act
    const error = await new Promise<Error | null>((resolve) => lookup('rebind.example', { all: true }, (failure) => resolve(failure)));

    // Assess
    expect(error?.message).toBe('rebind.example resolves to a link-local address');
  });

  it('a delivery to such a name is recorded as refused, and no connection is made', async () => {
    // Prepare: a receiver on loopback that counts connections, and a name resolving to it
    let connections = 0;
    const server = createServer((_request, response) => response.end()).on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const post = httpPoster({ policy: LOCAL_STRICT, resolver: async () => [{ address: '127.0.0.1', family: 4 }] });

    // Act
    const result = await post(`http://receiver.example:${port}/hook`, {}, '{}');
    server.close();

    // Assess
    expect(result).toEqual(expect.objectContaining({ status: null, error: 'refused: receiver.example resolves to a loopback address' }));
    expect(connections).toBe(0);
  });

  it('a 3xx is a failure and is not followed', async () => {
    let hits = 0;
    const server = createServer((_request, response) => {
      hits++;
      response.writeHead(302, { location: '/elsewhere' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const post = httpPoster({ policy: LOCAL });
    const result = await post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, {}, '{}');
    server.close();
    expect([result.status, hits]).toEqual([302, 1]);
  });
});
