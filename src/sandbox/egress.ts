// The one outbound HTTP path of the server on behalf of a session (HTTP hooks today; web tools
// build on it). A URL is checked before anything is sent: http/https only, no userinfo; a
// literal IP is checked as is; a name is resolved once and refused if ANY of its addresses is
// denied; the connection is then pinned to the checked address, so a second DNS answer cannot
// move it. Denied unless the operator allowlists them (NORMA_EGRESS_ALLOW: hosts or CIDRs):
// loopback, private, link-local (169.254.169.254 included), CGNAT, unique-local, multicast,
// reserved, unspecified and broadcast ranges, with IPv4-mapped/compatible, NAT64 and 6to4
// forms unwrapped to the IPv4 address they carry. Environment proxies are never used.
import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent } from 'undici';
import { undici } from '../egress/undici.js';

export class EgressRefusal extends Error {}

/** One outbound request (a hop, or a sandbox's tunnel) as evidence. */
export interface EgressEvidence {
  time: string;
  method: string;
  url: string;
  /** The address connected to; empty when the request was refused before connecting. */
  address: string;
  status: number | null;
  bytes: number;
  /** SHA-256 (hex) of the response body bytes received (null for a tunnel: its bytes are encrypted). */
  sha256: string | null;
  duration_ms: number;
  /** Why the request was refused or failed. */
  error?: string;
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

export interface EgressPolicy {
  /** NORMA_EGRESS_ALLOW entries: host names or IP addresses/CIDRs that may be reached although private. */
  allow: readonly string[];
  /** DNS resolution (tests inject one); default: the system resolver, every address. */
  resolve?: Resolver;
}

const defaultResolve: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true });

/** The IPv4 address an IPv6 address carries (mapped, translated, compatible, NAT64, 6to4), if any. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const last = () => ipaddr.IPv4.parse(`${p[6]! >> 8}.${p[6]! & 255}.${p[7]! >> 8}.${p[7]! & 255}`);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (p.slice(0, 4).every((x) => x === 0) && p[4] === 0xffff && p[5] === 0) return last();
  // ::a.b.c.d (deprecated IPv4-compatible)
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return last();
  // 64:ff9b::/96 (NAT64) and 64:ff9b:1::/48 (local-use NAT64)
  if (p[0] === 0x64 && p[1] === 0xff9b && (p.slice(2, 6).every((x) => x === 0) || p[2] === 1)) return last();
  // 2002:wwxx:yyzz::/16 (6to4)
  if (p[0] === 0x2002) return ipaddr.IPv4.parse(`${p[1]! >> 8}.${p[1]! & 255}.${p[2]! >> 8}.${p[2]! & 255}`);
  return null;
}

/**
 * Why an address may not be reached (`"loopback"`, `"private"` …), or null when it may. Only
 * global unicast passes: every special-purpose range is refused, those ipaddr.js knows by name and
 * any it may learn later (Teredo, ORCHID, discard-only, documentation …), after unwrapping the
 * IPv4 address an IPv6 form carries.
 */
export function deniedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v4 = embeddedIPv4(ip as ipaddr.IPv6);
    if (v4) ip = v4;
  }
  const range = ip.range();
  if (ip.kind() === 'ipv4') {
    // 0.0.0.0/8 ("this network"), 192.0.0.0/24 (protocol assignments), 198.18.0.0/15 (benchmarking)
    const v4 = ip as ipaddr.IPv4;
    if (v4.octets[0] === 0) return 'unspecified';
    if (v4.match(ipaddr.parseCIDR('192.0.0.0/24') as [ipaddr.IPv4, number])) return 'reserved';
    if (v4.match(ipaddr.parseCIDR('198.18.0.0/15') as [ipaddr.IPv4, number])) return 'reserved';
  }
  return range === 'unicast' ? null : range;
}

function allowlisted(address: string, host: string, allow: readonly string[]): boolean {
  const ip = ipaddr.process(address);
  for (const entry of allow) {
    if (entry.includes('/')) {
      try {
        const [net0, bits] = ipaddr.parseCIDR(entry);
        if (ip.kind() === net0.kind() && ip.match([net0, bits] as never)) return true;
      } catch {
        // not a CIDR; the configuration check refused it already
      }
    } else if (ipaddr.isValid(entry)) {
      if (ipaddr.process(entry).toString() === ip.toString()) return true;
    } else if (entry.startsWith('*.') ? host.endsWith(entry.slice(1).toLowerCase()) : entry.toLowerCase() === host) {
      return true;
    }
  }
  return false;
}

export interface CheckedTarget {
  url: URL;
  /** The address the connection must use. */
  address: string;
  family: 4 | 6;
}

/** Checks a URL and resolves it once; an EgressRefusal names the rule that refused it. */
export async function checkTarget(raw: string, policy: EgressPolicy): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressRefusal(`${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EgressRefusal(`${url.protocol} URLs are not allowed (only http and https)`);
  if (url.username !== '' || url.password !== '') throw new EgressRefusal('URLs with credentials (user:password@) are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === '') throw new EgressRefusal('the URL names no host');
  const literal = net.isIP(host) !== 0;
  let addresses: { address: string; family: number }[];
  if (literal) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(host);
    } catch (err) {
      throw new EgressRefusal(`${host} does not resolve (${(err as Error).message})`);
    }
    if (addresses.length === 0) throw new EgressRefusal(`${host} does not resolve`);
  }
  for (const a of addresses) {
    const why = deniedRange(a.address);
    if (why && !allowlisted(a.address, host, policy.allow)) {
      throw new EgressRefusal(`${literal ? host : `${host} resolves to ${a.address}`}: ${why} addresses are not allowed (NORMA_EGRESS_ALLOW can open specific ones)`);
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** Separate limits for one pinned dispatcher; each one left out is `timeoutMs`. */
export interface PinnedTimeouts {
  /** Connecting (TCP and TLS). */
  connectMs?: number;
  /** From sending the request to the response headers. */
  headersMs?: number;
  /** Longest silence between two chunks of the body. */
  idleMs?: number;
}

/** A dispatcher whose every connection goes to the checked address (the name only for TLS and Host). */
export async function pinnedAgent(target: CheckedTarget, timeoutMs: number, timeouts: PinnedTimeouts = {}): Promise<Agent> {
  const { Agent } = await undici();
  return new Agent({
    connect: {
      timeout: timeouts.connectMs ?? timeoutMs,
      // net.connect asks for one address or, with autoSelectFamily, for all: either way the checked one.
      lookup: ((_host: string, opts: { all?: boolean }, callback: (err: Error | null, address: unknown, family?: number) => void) => {
        if (opts?.all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      }) as never,
    },
    headersTimeout: timeouts.headersMs ?? timeoutMs,
    bodyTimeout: timeouts.idleMs ?? timeoutMs,
  });
}
