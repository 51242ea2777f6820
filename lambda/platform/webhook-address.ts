/**
 * Where a webhook may go (server-side request forgery): an endpoint URL is
 * checked when it is stored and every address its name resolves to is
 * checked again when a delivery connects, so a name that later resolves
 * inward (DNS rebinding) is refused too.
 *
 * Spellings: the WHATWG URL parser writes every IPv4 host in one form
 * (`2130706433`, `0x7f.1`, `017700000001` and `127.1` are all `127.0.0.1`)
 * and IPv6 hosts in their compressed form; ipaddr.js then reads an
 * IPv4-mapped IPv6 address (`::ffff:7f00:1`) as the IPv4 address it maps,
 * and every other IPv6 form that carries an IPv4 address (IPv4-compatible,
 * SIIT, NAT64, 6to4, Teredo) is judged by the address it carries.
 * Only public unicast addresses pass; loopback only where allowed (the local
 * runtime, for a developer's receiver on 127.0.0.1).
 */
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { AddressPolicy, Resolver } from './address-policy';

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that embed one
 * (what a NAT64 gateway, a 6to4 relay or a dual stack would reach), or
 * undefined for a plain IPv6 address. `::` and `::1` are IPv6's own
 * unspecified and loopback addresses and are judged as such.
 */
export function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  const ipv4At = (offset: number) => new ipaddr.IPv4(bytes.slice(offset, offset + 4));
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const startsWith = (...prefix: number[]) => prefix.every((byte, index) => bytes[index] === byte);
  // ::a.b.c.d, IPv4-compatible (RFC 4291 §2.5.5.1, deprecated but still routed by some stacks).
  if (zeros(0, 12)) return ['0.0.0.0', '0.0.0.1'].includes(ipv4At(12).toString()) ? undefined : [ipv4At(12)];
  // ::ffff:a.b.c.d, IPv4-mapped (RFC 4291 §2.5.5.2), and ::ffff:0:a.b.c.d, IPv4-translated (RFC 2765, SIIT).
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [ipv4At(12)];
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return [ipv4At(12)];
  // 64:ff9b::/96, NAT64's well-known prefix (RFC 6052).
  if (startsWith(0x00, 0x64, 0xff, 0x9b) && zeros(4, 12)) return [ipv4At(12)];
  // 2002::/16, 6to4 (RFC 3056): the relay's IPv4 in bits 16-47.
  if (startsWith(0x20, 0x02)) return [ipv4At(2)];
  // 2001::/32, Teredo (RFC 4380): the server in bits 32-63, the client's address inverted in the last 32.
  if (startsWith(0x20, 0x01, 0x00, 0x00)) {
    const client = new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff));
    return [ipv4At(4), client];
  }
  return undefined;
}

/** 64:ff9b:1::/48, NAT64 for local use (RFC 8215): where it puts the IPv4 address depends on a prefix length nobody states. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

/** Why a parsed address is refused by its own range, or undefined when it may be reached. */
function refusedRange(parsed: ipaddr.IPv4 | ipaddr.IPv6, policy: AddressPolicy): string | undefined {
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback') return policy.allowLoopback ? undefined : 'resolves to a loopback address';
  return `resolves to a ${RANGE_WORDS[range] ?? 'reserved'} address`;
}

/**
 * Why an address is refused, or undefined when it may be reached. An IPv6
 * address that carries IPv4 addresses (`carriedIPv4`) is judged by each of
 * them: `::a9fe:a9fe` is 169.254.169.254, whatever its spelling.
 */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'is not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.match(LOCAL_NAT64)) return 'resolves to a reserved address (local-use NAT64)';
    const carried = carriedIPv4(ipv6);
    if (carried) {
      for (const ipv4 of carried) {
        const refused = refusedRange(ipv4, policy);
        if (refused) return `${refused} (${ipv4.toString()} inside an IPv6 address)`;
      }
      return undefined;
    }
  }
  return refusedRange(parsed, policy);
}

const RANGE_WORDS: Record<string, string> = {
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  carrierGradeNat: 'shared (carrier-grade NAT)',
  reserved: 'reserved',
};

/** A host name that is loopback by definition (RFC 6761), whatever a resolver says. */
const LOOPBACK_NAME = /(^|\.)localhost\.?$/i;

/** The URL as it will be called, or why it may not be stored or called. */
export function checkEndpointUrl(raw: string, policy: AddressPolicy): { ok: true; url: URL } | { ok: false; issue: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, issue: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !policy.httpsOnly)) {
    return { ok: false, issue: policy.httpsOnly ? 'must use https' : 'must use http or https' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, issue: 'must not carry user information (user:password@)' };
  if (url.hash !== '') return { ok: false, issue: 'must not carry a fragment (#…)' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { ok: false, issue: 'must name a host' };
  if (ipaddr.isValid(host)) {
    const refused = refusedAddress(host, policy);
    return refused ? { ok: false, issue: `must not name an address that ${refused.replace(/^resolves to/, 'is')}` } : { ok: true, url };
  }
  if (LOOPBACK_NAME.test(host) && !policy.allowLoopback) return { ok: false, issue: 'must not name a loopback host' };
  return { ok: true, url };
}

/** The error a connection refused by the policy fails with. */
export class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED';
}

/**
 * The URL's host checked through `resolver` too (at create and update): a
 * name must resolve, and to no address the policy refuses; the issue in
 * words, or undefined. A literal
 * address was checked already; the connection checks again (rebinding).
 */
export async function checkEndpointHost(url: URL, policy: AddressPolicy, resolver: Resolver): Promise<string | undefined> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (ipaddr.isValid(host) || LOOPBACK_NAME.test(host)) return undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await resolver(host);
  } catch (error) {
    return `must name a host that resolves (${(error as NodeJS.ErrnoException).code ?? 'no address'})`;
  }
  if (addresses.length === 0) return 'must name a host that resolves (no address)';
  const refused = addresses.map((entry) => refusedAddress(entry.address, policy)).find((why) => why !== undefined);
  return refused ? `must not name a host that ${refused}` : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`: resolves through `resolver` and refuses the
 * connection when any address the name has is refused by `policy`, at the
 * moment of connecting.
 */
export function guardedLookup(resolver: Resolver, policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean } | number, callback: LookupCallback): void => {
    resolver(hostname).then(
      (addresses) => {
        const refused = addresses.map((entry) => refusedAddress(entry.address, policy)).find((why) => why !== undefined);
        if (addresses.length === 0) return callback(new AddressRefused(`${hostname} has no address`), '', 4);
        if (refused) return callback(new AddressRefused(`${hostname} ${refused}`), '', 4);
        const all = typeof options === 'object' && options.all;
        if (all) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}
