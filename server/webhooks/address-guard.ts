// Where a webhook may go (issue 46): an http(s) URL whose host resolves only to public addresses. Loopback, private,
// link-local (cloud metadata at 169.254.169.254), CGNAT, multicast and the other special ranges are refused unless
// WEBHOOK_ALLOW_PRIVATE=1. The name is resolved once per attempt and the request connects to the address that was
// checked (send.ts), so a DNS answer that changes between the check and the connection cannot redirect it.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

export type Resolved = { address: string; family: 4 | 6 };
export type Resolve = (host: string) => Promise<Resolved[]>;

/** A URL or an address a webhook may not use; the message names why, for a 422 or the delivery log. */
export class RefusedTarget extends Error {
  name = 'RefusedTarget';
}

// Two lists: a BlockList checks an IPv4 address against IPv6 rules too (as ::ffff:a.b.c.d), so one list would
// let an IPv6 rule catch every IPv4 address.
const SPECIAL_V4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL_V4.addSubnet(net, bits, 'ipv4');
const SPECIAL_V6 = new BlockList();
for (const [net, bits] of [
  ['::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2002::', 16],
] as const) SPECIAL_V6.addSubnet(net, bits, 'ipv6');

/** Loopback, private, link-local, CGNAT, multicast, reserved or NAT64 (anything but an IP counts as special too). */
export function isSpecialAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return SPECIAL_V4.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = mappedIpv4(address);
  return mapped === null ? SPECIAL_V6.check(address, 'ipv6') : mapped === '' || isSpecialAddress(mapped);
}

/** The IPv4 address inside an IPv4-mapped IPv6 one; '' for an address that does not parse (a zone id): special. */
function mappedIpv4(address: string): string | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname; // one way of writing it: [::ffff:a00:1]
  } catch {
    return '';
  }
  const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (!m) return null;
  const [hi, lo] = [parseInt(m[1], 16), parseInt(m[2], 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** The URL as a webhook target: http(s), no credentials in it, at most 2,000 characters. */
export function parseTarget(text: unknown): URL {
  if (typeof text !== 'string' || text.length > 2000) throw new RefusedTarget('an http or https address of at most 2000 characters');
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new RefusedTarget('an http or https address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedTarget('an http or https address');
  if (url.username || url.password) throw new RefusedTarget('no user name or password in the address (the signature authenticates us)');
  url.hash = '';
  return url;
}

/**
 * The address to connect to for the URL's host: every address the name resolves to must be public (unless private
 * ones are allowed), and the first is used.
 */
export async function checkedAddress(url: URL, allowPrivate: boolean, resolve: Resolve = systemResolve): Promise<Resolved> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Resolved[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
    if (!addresses.length) throw new RefusedTarget(`${host} does not resolve`);
  }
  if (!allowPrivate) {
    const special = addresses.find((a) => isSpecialAddress(a.address));
    if (special) {
      const what = host === special.address ? `${host} is` : `${host} resolves to ${special.address},`;
      throw new RefusedTarget(`${what} a loopback, private or special address (WEBHOOK_ALLOW_PRIVATE=1 allows it)`);
    }
  }
  return addresses[0];
}
