import { lookup } from 'node:dns/promises';
import net from 'node:net';

export interface AddressPolicy {
  /** Send to private, link-local and metadata addresses too (operator's choice). */
  allowPrivate: boolean;
  /** Loopback is allowed in sandbox mode, so local receivers work. */
  allowLoopback: boolean;
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const inV4 = (ip: string, base: string, bits: number) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ipv4ToInt(ip) & mask) >>> 0) === ((ipv4ToInt(base) & mask) >>> 0);
};

/** Why an address may not receive webhooks, or undefined when it may. */
export function forbiddenAddress(ip: string, policy: AddressPolicy): string | undefined {
  let address = ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1];
  if (net.isIPv4(address)) {
    if (inV4(address, '127.0.0.0', 8)) return policy.allowLoopback ? undefined : 'loopback address';
    if (policy.allowPrivate) return undefined;
    if (inV4(address, '169.254.0.0', 16)) return 'link-local or metadata address';
    if (inV4(address, '10.0.0.0', 8) || inV4(address, '172.16.0.0', 12) || inV4(address, '192.168.0.0', 16)) return 'private address';
    if (inV4(address, '100.64.0.0', 10)) return 'shared address space';
    if (inV4(address, '0.0.0.0', 8)) return 'unspecified address';
    return undefined;
  }
  const lower = address.toLowerCase();
  if (lower === '::1') return policy.allowLoopback ? undefined : 'loopback address';
  if (policy.allowPrivate) return undefined;
  if (lower === '::') return 'unspecified address';
  if (/^fe[89ab]/.test(lower)) return 'link-local address';
  if (/^f[cd]/.test(lower)) return 'private address';
  if (lower.startsWith('fd00:ec2::254')) return 'metadata address';
  return undefined;
}

/** Resolves the URL's host and checks every address; answers the reason when refused. */
export async function checkWebhookUrl(rawUrl: string, policy: AddressPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'only http and https URLs are allowed';
  if (url.username || url.password) return 'URLs with credentials are not allowed';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `cannot resolve ${host}`;
  }
  for (const address of addresses) {
    const reason = forbiddenAddress(address, policy);
    if (reason) return `${host} resolves to a ${reason} (${address})`;
  }
  return undefined;
}
