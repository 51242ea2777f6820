/**
 * Where a webhook may go (server-side request forgery): an endpoint URL is
 * checked when it is stored and every address its name resolves to is
 * checked again when a delivery connects, so a name that later resolves
 * inward (DNS rebinding) is refused too.
 *
 * Spellings: the WHATWG URL parser writes every IPv4 host in one form
 * (`2130706433`, `0x7f.1`, `017700000001` and `127.1` are all `127.0.0.1`)
 * and IPv6 hosts in their compressed form; ipaddr.js then reads an
 * IPv4-mapped IPv6 address (`::ffff:7f00:1`) as the IPv4 address it maps.
 * Only public unicast addresses pass; loopback only where allowed (the local
 * runtime, for a developer's receiver on 127.0.0.1).
 */
import { lookup as systemLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Only https (AWS); otherwise http too (the local runtime). */
  readonly httpsOnly: boolean;
  /** Loopback targets allowed (locally `WEBHOOK_ALLOW_LOOPBACK`, default true; never in AWS). */
  readonly allowLoopback: boolean;
}

/** AWS: https only, public addresses only. */
export const STRICT_POLICY: AddressPolicy = { httpsOnly: true, allowLoopback: false };

/** Why an address is refused, or undefined when it may be reached. */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'is not an IP address';
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback') return policy.allowLoopback ? undefined : 'resolves to a loopback address';
  return `resolves to a ${RANGE_WORDS[range] ?? 'reserved'} address`;
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

/** Resolves a host name to every address it has (a stub in the tests). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => systemLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

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
