/**
 * `ip_whitelist` entries and source-IP matching, on Node's own address
 * grammar (`node:net` isIPv4/isIPv6, the same parsers Node's sockets use)
 * and the WHATWG URL serializer for IPv6 text (RFC 5952: lower case, the
 * first longest run of zero groups as `::`). Addresses are compared as
 * integers; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the IPv4 address.
 *
 * Replaces ipaddr.js (about 13 KB in every bundle that authenticates);
 * test/domain/ip-allowlist.reference.test.ts checks it against ipaddr.js on
 * random addresses and blocks.
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Address {
  readonly kind: 'ipv4' | 'ipv6';
  readonly value: bigint;
}

const BITS = { ipv4: 32, ipv6: 128 } as const;

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function ipv6Value(text: string): bigint {
  // An IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) is two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  const head = tail === undefined ? text : text.slice(0, -tail.length);
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').filter((group) => group !== ''));
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const leftGroups = groupsOf(left!);
  const rightGroups = right === undefined ? [] : groupsOf(right);
  const tailGroups = tail === undefined ? [] : [(ipv4Value(tail) >> 16n).toString(16), (ipv4Value(tail) & 0xffffn).toString(16)];
  const missing = 8 - leftGroups.length - rightGroups.length - tailGroups.length;
  const groups = [...leftGroups, ...Array<string>(right === undefined ? 0 : missing).fill('0'), ...rightGroups, ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

function parseAddress(text: string): Address | undefined {
  // isIPv4 takes dotted quads only (no "10" or "0x0a.1"); isIPv6 takes no zone id (`fe80::1%eth0`).
  if (isIPv4(text)) return { kind: 'ipv4', value: ipv4Value(text) };
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const value = ipv6Value(text);
  return value >> 32n === 0xffffn ? { kind: 'ipv4', value: value & 0xffffffffn } : { kind: 'ipv6', value };
}

function textOf(address: Address): string {
  if (address.kind === 'ipv4') return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((address.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

function networkOf(address: Address, prefix: number): Address {
  const hostBits = BigInt(BITS[address.kind] - prefix);
  return { kind: address.kind, value: (address.value >> hostBits) << hostBits };
}

/** The address in canonical form (IPv4-mapped IPv6 as IPv4), or undefined when `text` is not exactly one address. */
export function canonicalAddress(text: string): string | undefined {
  const address = parseAddress(text);
  return address && textOf(address);
}

/**
 * Normalises an entry: an address in canonical form, or a CIDR block as its
 * network address and prefix (`10.1.2.3/8` → `10.0.0.0/8`). Undefined when
 * the entry is neither.
 */
export function normaliseIpEntry(entry: string): string | undefined {
  const text = entry.trim();
  const slash = text.indexOf('/');
  if (slash === -1) return canonicalAddress(text);
  const address = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) return undefined;
  // A mapped IPv4 CIDR (`::ffff:10.0.0.0/104`) is rewritten in IPv4 terms.
  const effective = Number(prefixText) - (text.includes(':') && address.kind === 'ipv4' ? 96 : 0);
  if (effective < 0 || effective > BITS[address.kind]) return undefined;
  return `${textOf(networkOf(address, effective))}/${effective}`;
}

/** Whether the source IP is inside any entry. An empty list allows every address. */
export function ipAllowed(entries: readonly string[], sourceIp: string | undefined): boolean {
  if (entries.length === 0) return true;
  const source = sourceIp ? parseAddress(sourceIp) : undefined;
  if (!source) return false;
  return entries.some((entry) => {
    const normalised = normaliseIpEntry(entry);
    if (!normalised) return false;
    const [network, prefix] = normalised.split('/');
    const block = parseAddress(network!)!;
    if (prefix === undefined) return block.kind === source.kind && block.value === source.value;
    return block.kind === source.kind && networkOf(source, Number(prefix)).value === block.value;
  });
}

/**
 * The unit a per-source limit counts: an IPv4 address as is, an IPv6 address
 * by its /64 network (one subscriber usually holds a whole /64, so counting
 * single IPv6 addresses would let one client rotate through billions), and
 * `unknown` when the source is missing or unparseable.
 */
export function sourceBucketOf(sourceIp: string | undefined): string {
  const address = sourceIp ? parseAddress(sourceIp) : undefined;
  if (!address) return 'unknown';
  if (address.kind === 'ipv4') return textOf(address);
  return `${textOf(networkOf(address, 64))}/64`;
}

/**
 * Where a caller is, as a key read may show it (docs/verification.md, "Who
 * still sends the old value"): an IPv4 address by its /24, an IPv6 one by
 * its /48, never a full address; undefined when the source is missing or
 * unparseable.
 */
export function callerNetworkOf(sourceIp: string | undefined): string | undefined {
  const address = sourceIp ? parseAddress(sourceIp) : undefined;
  if (!address) return undefined;
  const prefix = address.kind === 'ipv4' ? 24 : 48;
  return `${textOf(networkOf(address, prefix))}/${prefix}`;
}
