/**
 * The ipaddr.js implementation the service used before lambda/domain/ip-allowlist.ts
 * moved to node:net: kept as the reference its replacement must agree with.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is treated as the IPv4 address. */
function unmap(address: Address): Address {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

function parseAddress(text: string): Address | undefined {
  // A zone id (`fe80::1%eth0`) names a local interface; it never appears in a source IP.
  if (text.includes('%') || !ipaddr.isValid(text)) return undefined;
  // ipaddr.isValid accepts legacy IPv4 forms ("10", "0x0a.1"); only dotted quads are allowed.
  if (!text.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(text)) return undefined;
  return unmap(ipaddr.parse(text));
}

/**
 * Normalises an entry: an address in canonical form, or a CIDR block as its
 * network address and prefix (`10.1.2.3/8` → `10.0.0.0/8`). Undefined when
 * the entry is neither.
 */
export function normaliseIpEntry(entry: string): string | undefined {
  const text = entry.trim();
  const slash = text.indexOf('/');
  if (slash === -1) return parseAddress(text)?.toString();
  const address = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const max = address.kind() === 'ipv4' ? 32 : 128;
  // A mapped IPv4 CIDR (`::ffff:10.0.0.0/104`) is rewritten in IPv4 terms.
  const mappedOffset = text.includes(':') && address.kind() === 'ipv4' ? 96 : 0;
  const effective = prefix - mappedOffset;
  if (effective < 0 || effective > max) return undefined;
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${effective}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${effective}`);
  return `${network.toString()}/${effective}`;
}

/** Whether the source IP is inside any entry. An empty list allows every address. */
export function ipAllowed(entries: readonly string[], sourceIp: string | undefined): boolean {
  if (entries.length === 0) return true;
  if (!sourceIp) return false;
  const source = parseAddress(sourceIp);
  if (!source) return false;
  return entries.some((entry) => {
    const normalised = normaliseIpEntry(entry);
    if (!normalised) return false;
    if (!normalised.includes('/')) return normalised === source.toString();
    const [network, prefix] = ipaddr.parseCIDR(normalised);
    return network.kind() === source.kind() && source.match([network, prefix] as never);
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
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

/** The canonical text of one address (what normaliseIpEntry gives for an entry without a prefix). */
export function canonicalAddress(text: string): string | undefined {
  return parseAddress(text)?.toString();
}
