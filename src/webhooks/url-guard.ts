import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The only IPv6 block allocated for global unicast. ipaddr.js calls everything outside its named ranges unicast,
 * which would let through the deprecated IPv4-compatible form (::a.b.c.d, a loopback in disguise) and space
 * the IETF keeps reserved.
 */
const globalUnicastV6 = ipaddr.parseCIDR('2000::/3');

/**
 * The special-purpose range an address lies in (as ipaddr.js names the ranges of the IANA IPv4 and IPv6 registries:
 * loopback, private, linkLocal, 6to4, teredo, rfc6052, reserved, …), or undefined for a public unicast address.
 * IPv4-mapped IPv6 is judged as the IPv4 address it carries; the other forms that embed IPv4 (6to4, Teredo, NAT64,
 * IPv4-translated) have ranges of their own and are refused whatever they carry.
 */
export function specialRangeOf(address: string): string | undefined {
  let parsed: ReturnType<typeof ipaddr.process>;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'unparseable';
  }
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !parsed.match(globalUnicastV6)) return 'reserved';
  return undefined;
}

/**
 * A webhook URL the guard let through. `addresses`, present when private targets are refused, are the ones it
 * checked: connect to those only, so a name re-pointed after the check cannot reach anything else.
 */
export interface CheckedTarget {
  url: URL;
  addresses?: LookupAddress[];
}

/**
 * The one guard of a webhook target, run when a subscription is made or changed and again before every send: http(s)
 * only, no credentials, and (unless private targets are allowed) every address the host is, or resolves to, must be
 * public. Answers why not in words that follow "the URL" / "url".
 */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<CheckedTarget | { refused: string }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: 'is not a URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { refused: 'must be an http or https URL' };
  if (parsed.username || parsed.password) return { refused: 'must not carry credentials' };
  if (allowPrivate) return { url: parsed };
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  let addresses: LookupAddress[];
  try {
    addresses = family ? [{ address: host, family }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    return { refused: 'has a host name that does not resolve' };
  }
  if (addresses.length === 0) return { refused: 'has a host name that does not resolve' };
  for (const { address } of addresses) {
    const range = specialRangeOf(address);
    if (range) return { refused: `reaches a special-purpose address (${range}), which webhooks may not target unless the operator allows private targets` };
  }
  return { url: parsed, addresses };
}
