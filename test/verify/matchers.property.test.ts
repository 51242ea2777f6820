/**
 * Property tests (fast-check) of the three matchers behind verification:
 * allowed origins of public keys, IP allowlists, scopes.
 */
import fc from 'fast-check';
import { normaliseDomainEntry, originAllowed, parseDomainEntry } from '../../lambda/domain/domains';
import { ipAllowed, normaliseIpEntry, sourceBucketOf } from '../../lambda/domain/ip-allowlist';
import { anyScopeCovers, isValidScope, scopeCovers, uncoveredScopes } from '../../lambda/contract/scopes';

const RUNS = { numRuns: 300 };

// ---------- domains ----------

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
/** A host name of 2-4 labels whose last label is alphabetic (a name, not an address). */
const hostName = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([labels, tld]) => [...labels, tld].join('.'));
const scheme = fc.constantFrom('http', 'https');
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const defaultPort = (s: string) => (s === 'https' ? 443 : 80);
const origin = (s: string, host: string, p: number | undefined) => `${s}://${host}${p === undefined ? '' : `:${p}`}`;

describe('allowed origins of public keys (domains)', () => {
  it('an exact entry allows its own origin, with or without the default port, and any path on it (Referer)', () => {
    fc.assert(
      fc.property(scheme, hostName, port, fc.webPath(), (s, host, p, path) => {
        const entry = origin(s, host, p);
        expect(originAllowed([entry], entry)).toBe(true);
        expect(originAllowed([entry], `${entry}${path.startsWith('/') ? path : `/${path}`}`)).toBe(true);
        const explicit = origin(s, host, p ?? defaultPort(s));
        expect(originAllowed([entry], explicit)).toBe(true);
        expect(originAllowed([explicit], entry)).toBe(true);
      }),
      RUNS,
    );
  });

  it('scheme and port must match exactly', () => {
    fc.assert(
      fc.property(scheme, hostName, port, fc.integer({ min: 1, max: 65535 }), (s, host, p, otherPort) => {
        const entry = origin(s, host, p);
        const otherScheme = s === 'http' ? 'https' : 'http';
        // The other scheme on the same explicit port is still a different origin.
        expect(originAllowed([entry], origin(otherScheme, host, p ?? defaultPort(s)))).toBe(false);
        fc.pre(otherPort !== (p ?? defaultPort(s)));
        expect(originAllowed([entry], origin(s, host, otherPort))).toBe(false);
      }),
      RUNS,
    );
  });

  it('https://*.<base> allows exactly one label in front of base: not base itself, not deeper, not base as a prefix of another host', () => {
    fc.assert(
      fc.property(hostName, label, label, hostName, (base, sub, deeper, evil) => {
        const entry = `https://*.${base}`;
        expect(originAllowed([entry], `https://${sub}.${base}`)).toBe(true);
        expect(originAllowed([entry], `https://${base}`)).toBe(false);
        expect(originAllowed([entry], `https://${deeper}.${sub}.${base}`)).toBe(false);
        expect(originAllowed([entry], `https://${sub}.${base}.${evil}`)).toBe(false);
        expect(originAllowed([entry], `https://${sub}${base}`)).toBe(false);
        expect(originAllowed([entry], `http://${sub}.${base}`)).toBe(false);
      }),
      RUNS,
    );
  });

  it('an exact entry never allows a subdomain or a look-alike', () => {
    fc.assert(
      fc.property(scheme, hostName, label, hostName, (s, host, sub, evil) => {
        const entry = origin(s, host, undefined);
        expect(originAllowed([entry], origin(s, `${sub}.${host}`, undefined))).toBe(false);
        expect(originAllowed([entry], origin(s, `${host}.${evil}`, undefined))).toBe(false);
        expect(originAllowed([entry], `${s}://${host}@${evil}`)).toBe(false);
      }),
      RUNS,
    );
  });

  it('normalising is idempotent and keeps the meaning of an entry', () => {
    fc.assert(
      fc.property(scheme, fc.boolean(), hostName, port, label, (s, wildcard, host, p, sub) => {
        const entry = `${s}://${wildcard ? '*.' : ''}${host.toUpperCase()}${p === undefined ? '' : `:${p}`}`;
        const normal = normaliseDomainEntry(entry);
        expect(normal).toBeDefined();
        expect(normaliseDomainEntry(normal as string)).toBe(normal);
        const probe = origin(s, wildcard ? `${sub}.${host}` : host, p);
        expect(originAllowed([normal as string], probe)).toBe(originAllowed([entry], probe));
        expect(originAllowed([entry], probe)).toBe(true);
      }),
      RUNS,
    );
  });

  it.each([
    ['a path', 'https://example.com/app'],
    ['a query', 'https://example.com?x=1'],
    ['credentials', 'https://user@example.com'],
    ['no scheme', 'example.com'],
    ['another scheme', 'ftp://example.com'],
    ['a wildcard not on the whole leftmost label', 'https://a*.example.com'],
    ['a wildcard in the middle', 'https://a.*.example.com'],
    ['a wildcard over a public suffix', 'https://*.com'],
    ['a wildcard over an address', 'https://*.0.0.1'],
    ['port 0', 'https://example.com:0'],
    ['port 65536', 'https://example.com:65536'],
  ])('an entry with %s is refused', (_label, entry) => {
    expect(parseDomainEntry(entry)).toBeUndefined();
  });

  it('internationalised names are kept in punycode, as browsers send them', () => {
    expect(normaliseDomainEntry('https://bücher.example')).toBe('https://xn--bcher-kva.example');
    expect(originAllowed(['https://bücher.example'], 'https://xn--bcher-kva.example')).toBe(true);
  });

  it('an unparseable or opaque Origin ("null") is never allowed', () => {
    expect(originAllowed(['https://example.com'], 'null')).toBe(false);
    expect(originAllowed(['https://example.com'], '')).toBe(false);
    expect(originAllowed(['https://example.com'], 'file:///etc/passwd')).toBe(false);
  });
});

// ---------- IP allowlist ----------

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const v4Text = (b: number[]) => b.join('.');
const v4Int = (b: number[]) => ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
const ipv6Groups = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 });
const v6Text = (g: number[]) => g.map((n) => n.toString(16)).join(':');
const v6Big = (g: number[]) => g.reduce((acc, n) => (acc << 16n) + BigInt(n), 0n);

function inV4Block(address: number[], network: number[], prefix: number): boolean {
  if (prefix === 0) return true;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (v4Int(address) & mask) >>> 0 === (v4Int(network) & mask) >>> 0;
}

function inV6Block(address: number[], network: number[], prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return v6Big(address) >> shift === v6Big(network) >> shift;
}

describe('IP allowlist (ip_whitelist)', () => {
  it('an IPv4 CIDR block allows exactly the addresses that share its prefix', () => {
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 0, max: 32 }), (address, network, prefix) => {
        const entry = `${v4Text(network)}/${prefix}`;
        expect(ipAllowed([entry], v4Text(address))).toBe(inV4Block(address, network, prefix));
        expect(ipAllowed([entry], v4Text(network))).toBe(true);
      }),
      RUNS,
    );
  });

  it('an IPv6 CIDR block allows exactly the addresses that share its prefix', () => {
    fc.assert(
      fc.property(ipv6Groups, ipv6Groups, fc.integer({ min: 0, max: 128 }), (address, network, prefix) => {
        // IPv4-mapped addresses count as IPv4; keep them out of the IPv6 property.
        fc.pre(!(address.slice(0, 5).every((n) => n === 0) && address[5] === 0xffff));
        fc.pre(!(network.slice(0, 5).every((n) => n === 0) && network[5] === 0xffff));
        const entry = `${v6Text(network)}/${prefix}`;
        expect(ipAllowed([entry], v6Text(address))).toBe(inV6Block(address, network, prefix));
      }),
      RUNS,
    );
  });

  it('a single address allows only itself, in any spelling', () => {
    fc.assert(
      fc.property(ipv4, ipv4, (a, b) => {
        expect(ipAllowed([v4Text(a)], v4Text(b))).toBe(v4Text(a) === v4Text(b));
        expect(ipAllowed([v4Text(a)], `::ffff:${v4Text(a)}`)).toBe(true);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(ipv6Groups, (g) => {
        const full = g.map((n) => n.toString(16).padStart(4, '0')).join(':');
        expect(ipAllowed([v6Text(g)], full.toUpperCase())).toBe(true);
      }),
      RUNS,
    );
  });

  it('IPv4 entries never allow IPv6 sources and the reverse (except IPv4-mapped IPv6)', () => {
    fc.assert(
      fc.property(ipv4, ipv6Groups, (a, g) => {
        fc.pre(!(g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff));
        expect(ipAllowed([`${v4Text(a)}/0`], v6Text(g))).toBe(false);
        expect(ipAllowed(['::/0'], v4Text(a))).toBe(false);
      }),
      RUNS,
    );
  });

  it('normalising a block gives its network address and keeps its meaning', () => {
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 0, max: 32 }), (network, probe, prefix) => {
        const entry = `${v4Text(network)}/${prefix}`;
        const normal = normaliseIpEntry(entry) as string;
        expect(normaliseIpEntry(normal)).toBe(normal);
        expect(ipAllowed([normal], v4Text(probe))).toBe(ipAllowed([entry], v4Text(probe)));
      }),
      RUNS,
    );
  });

  it('an empty list allows every source; a non-empty list refuses a missing or garbled source', () => {
    expect(ipAllowed([], undefined)).toBe(true);
    expect(ipAllowed(['10.0.0.0/8'], undefined)).toBe(false);
    expect(ipAllowed(['10.0.0.0/8'], 'not-an-ip')).toBe(false);
    expect(ipAllowed(['10.0.0.0/8'], '10')).toBe(false);
    expect(ipAllowed(['fe80::/10'], 'fe80::1%eth0')).toBe(false);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.1/-1', '010.0.0.1', '1.2.3', 'fe80::1%eth0', '10.0.0.0/8/8', ''])('entry %p is refused', (entry) => {
    expect(normaliseIpEntry(entry)).toBeUndefined();
  });

  it('per-source counting: IPv4 by address, IPv6 by /64', () => {
    fc.assert(
      fc.property(ipv6Groups, fc.array(fc.nat(0xffff), { minLength: 4, maxLength: 4 }), (g, tail) => {
        fc.pre(!(g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff));
        const sibling = [...g.slice(0, 4), ...tail];
        fc.pre(!(sibling.slice(0, 5).every((n) => n === 0) && sibling[5] === 0xffff));
        expect(sourceBucketOf(v6Text(g))).toBe(sourceBucketOf(v6Text(sibling)));
        expect(sourceBucketOf(v6Text(g))).toMatch(/\/64$/);
      }),
      RUNS,
    );
    expect(sourceBucketOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceBucketOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceBucketOf(undefined)).toBe('unknown');
  });
});

// ---------- scopes ----------

const segment = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/).filter((s) => s !== 'manage');
const concreteScope = fc.tuple(segment, segment, segment).map(([a, r, x]) => `${a}.${r}:${x}`);
const wildcardScope = fc.tuple(segment, segment).map(([a, x]) => `${a}.*:${x}`);
const manageScope = segment.map((a) => `${a}.manage`);
const anyScope = fc.oneof(concreteScope, wildcardScope, manageScope);

describe('scopes', () => {
  it('every generated scope is valid and covers itself', () => {
    fc.assert(
      fc.property(anyScope, (scope) => {
        expect(isValidScope(scope)).toBe(true);
        expect(scopeCovers(scope, scope)).toBe(true);
      }),
      RUNS,
    );
  });

  it('<area>.*:<action> covers every resource of the area for that action, and nothing else', () => {
    fc.assert(
      fc.property(segment, segment, segment, segment, segment, (area, resource, action, otherArea, otherAction) => {
        expect(scopeCovers(`${area}.*:${action}`, `${area}.${resource}:${action}`)).toBe(true);
        expect(scopeCovers(`${area}.*:${action}`, `${otherArea}.${resource}:${action}`)).toBe(area === otherArea);
        expect(scopeCovers(`${area}.*:${action}`, `${area}.${resource}:${otherAction}`)).toBe(action === otherAction);
        expect(scopeCovers(`${area}.*:${action}`, `${area}.manage`)).toBe(false);
      }),
      RUNS,
    );
  });

  it('a concrete scope covers only itself (never the wildcard above it)', () => {
    fc.assert(
      fc.property(concreteScope, anyScope, (held, needed) => {
        expect(scopeCovers(held, needed)).toBe(held === needed);
      }),
      RUNS,
    );
  });

  it('<area>.manage (keys.manage included) covers only itself', () => {
    fc.assert(
      fc.property(fc.oneof(manageScope, fc.constant('keys.manage')), anyScope, (held, needed) => {
        expect(scopeCovers(held, needed)).toBe(held === needed);
      }),
      RUNS,
    );
    expect(scopeCovers('keys.manage', 'keys.tiles:read')).toBe(false);
    expect(scopeCovers('keys.manage', 'enc.tiles:read')).toBe(false);
  });

  it('covering is transitive', () => {
    fc.assert(
      fc.property(anyScope, anyScope, anyScope, (a, b, c) => {
        if (scopeCovers(a, b) && scopeCovers(b, c)) expect(scopeCovers(a, c)).toBe(true);
      }),
      RUNS,
    );
  });

  it('uncoveredScopes is exactly the requested scopes no held scope covers', () => {
    fc.assert(
      fc.property(fc.array(anyScope, { maxLength: 5 }), fc.array(anyScope, { maxLength: 5 }), (held, requested) => {
        const missing = uncoveredScopes(held, requested);
        for (const scope of requested) expect(missing.includes(scope)).toBe(!anyScopeCovers(held, scope));
      }),
      RUNS,
    );
  });

  it('the spec examples', () => {
    expect(scopeCovers('enc.*:read', 'enc.tiles:read')).toBe(true);
    expect(scopeCovers('enc.tiles:read', 'enc.*:read')).toBe(false);
    expect(scopeCovers('enc.*:read', 'interact.identify:read')).toBe(false);
    expect(anyScopeCovers(['keys.manage', 'enc.*:read'], 'enc.tiles:read')).toBe(true);
  });

  it('invalid scopes cover nothing and are covered by nothing', () => {
    for (const bad of ['', '*', 'enc.*', 'enc.tiles', 'ENC.tiles:read', 'enc.tiles:*', '*.tiles:read', 'enc..read']) {
      expect(isValidScope(bad)).toBe(false);
      expect(scopeCovers(bad, bad)).toBe(false);
      expect(scopeCovers('enc.*:read', bad)).toBe(false);
    }
  });
});
