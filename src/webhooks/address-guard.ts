import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Send to private addresses too (RFC 1918, unique local, shared address space): the operator's choice. */
  allowPrivate: boolean;
  /** Loopback is allowed in sandbox mode, so local receivers work. */
  allowLoopback: boolean;
}

/** Cloud metadata services: refused whatever the policy, since no webhook lives there. */
const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toNormalizedString());

/**
 * IPv4 blocks that ipaddr.js reports as plain unicast although they are special-purpose
 * (RFC 6890 and its updates): protocol assignments, documentation, 6to4 relay anycast.
 */
const SPECIAL_V4 = ['192.0.0.0/24', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '192.88.99.0/24', '240.0.0.0/4'].map((c) =>
  ipaddr.IPv4.parseCIDR(c),
);

/** The IPv4 address carried inside an IPv6 one (mapped, compatible, NAT64, SIIT, 6to4), if any. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = v6.parts;
  const last32 = () => new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);
  switch (v6.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return last32();
    case 'rfc6052': // 64:ff9b::a.b.c.d, the NAT64 well-known prefix
      return parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0 ? last32() : undefined;
    case '6to4': // 2002:AABB:CCDD::/48
      return new ipaddr.IPv4([parts[1] >> 8, parts[1] & 0xff, parts[2] >> 8, parts[2] & 0xff]);
    default:
      // IPv4-compatible (::a.b.c.d, deprecated): the first 96 bits are zero.
      if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1)) return last32();
      return undefined;
  }
}

/**
 * An IPv6 text ending in a dotted IPv4 tail with the tail as two hex groups (`::127.0.0.1` →
 * `::7f00:1`), as Node's URL writes it: ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`.
 */
function dottedTailAsHex(text: string): string {
  const tail = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!tail || !tail.slice(2).every((n) => Number(n) <= 255)) return text;
  const [a, b, c, d] = tail.slice(2).map(Number);
  return `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Why an address may not receive webhooks, or undefined when it may. Every spelling is first
 * normalised (IPv4 inside IPv6 unwrapped), then judged by its range: only global unicast is
 * allowed, plus loopback in sandbox mode and private ranges when the operator allows them.
 * Metadata, link-local, multicast, broadcast, reserved, benchmarking, Teredo and the like never.
 */
export function forbiddenAddress(ip: string, policy: AddressPolicy): string | undefined {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(dottedTailAsHex(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '')));
  } catch {
    return 'not an IP address';
  }
  if (address instanceof ipaddr.IPv6) {
    const inner = embeddedIPv4(address);
    if (inner) {
      // Only ::ffff:a.b.c.d is IPv4 to the kernel (it connects to a.b.c.d, so ::ffff:127.0.0.1 is
      // loopback); the other forms leave through the IPv6 route to a translator or relay, so
      // an IPv4 loopback inside them is not this machine.
      const parts = address.parts;
      const mapped = parts[5] === 0xffff && parts.slice(0, 5).every((p) => p === 0);
      const reason = forbiddenAddress(inner.toString(), mapped ? policy : { ...policy, allowLoopback: false });
      return reason ? `${reason} inside an IPv6 address` : undefined;
    }
  }
  if (METADATA.includes(address.toNormalizedString())) return 'metadata address';
  const v4 = address instanceof ipaddr.IPv4 ? address : undefined;
  if (v4 && SPECIAL_V4.some((cidr) => v4.match(cidr))) return 'special-purpose address';
  const range = address.range();
  switch (range) {
    case 'unicast':
      return undefined;
    case 'loopback':
      return policy.allowLoopback ? undefined : 'loopback address';
    case 'private':
    case 'uniqueLocal':
    case 'carrierGradeNat':
      return policy.allowPrivate ? undefined : 'private address';
    case 'linkLocal':
      return 'link-local address';
    default:
      return `${range.replace(/([A-Z])/g, ' $1').toLowerCase()} address`;
  }
}

/** The parts of a webhook URL that can be judged without the network, or why it is refused. */
export function parseWebhookUrl(rawUrl: string, policy: AddressPolicy): { url: URL; host: string } | { refused: string } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { refused: 'not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: 'only http and https URLs are allowed' };
  if (url.username || url.password) return { refused: 'URLs with credentials are not allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const reason = forbiddenAddress(host, policy);
    if (reason) return { refused: `${host} is a ${reason}` };
  }
  return { url, host };
}

type Resolve = (host: string) => Promise<Array<{ address: string; family: number }>>;
const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/** Resolves the URL's host and checks every address; answers the reason when refused. */
export async function checkWebhookUrl(
  rawUrl: string,
  policy: AddressPolicy,
  resolve: Resolve = systemResolve,
): Promise<string | undefined> {
  const parsed = parseWebhookUrl(rawUrl, policy);
  if ('refused' in parsed) return parsed.refused;
  if (net.isIP(parsed.host)) return undefined;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolve(parsed.host);
  } catch {
    return `cannot resolve ${parsed.host}`;
  }
  for (const { address } of addresses) {
    const reason = forbiddenAddress(address, policy);
    if (reason) return `${parsed.host} resolves to a ${reason} (${address})`;
  }
  return undefined;
}

/**
 * A `lookup` for outbound connections that checks what it resolves: the socket connects to an
 * address that passed the policy in this very lookup, so a DNS answer that changes between the
 * URL check and the connection (rebinding) cannot redirect a request. Any forbidden address in
 * the answer refuses the connection, as the URL check does.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const reason = forbiddenAddress(address, policy);
          if (reason) {
            const error = Object.assign(new Error(`${hostname} resolves to a ${reason} (${address})`), { code: 'EADDRREFUSED' });
            return callback(error, '', 0);
          }
        }
        const family = options.family;
        const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
        const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
        if (usable.length === 0) return callback(Object.assign(new Error(`cannot resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return callback(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
