// Domain filters, applied to every backend's results (whatever the backend did with them), so
// allowed/blocked domains mean the same for each backend.
import { domainToASCII } from 'node:url';
import type { SearchResult } from './types.js';

/**
 * The domain filter on its own (exported for tests): a result passes when its host equals or is a
 * subdomain of an allowed domain (if any are given) and of no blocked domain; case-insensitive, a
 * leading `*.` or `.` in the filter is ignored, ports ignored, invalid URLs dropped. Blank filter
 * entries are ignored.
 */
export function filterByDomain(results: SearchResult[], allowed?: string[], blocked?: string[]): SearchResult[] {
  const allow = normalizeDomains(allowed);
  const block = normalizeDomains(blocked);
  return results.filter((r) => {
    const host = hostOf(r.url);
    if (host === null) return false;
    if (allow.length > 0 && !allow.some((d) => hostMatches(host, d))) return false;
    return !block.some((d) => hostMatches(host, d));
  });
}

function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function hostOf(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return host === '' ? null : host;
}

/** Lower-cased ASCII (punycode) domains, without a leading `*.`/`.`, a scheme, a path or a port. */
export function normalizeDomains(list: string[] | undefined): string[] {
  if (list === undefined) return [];
  const out: string[] = [];
  for (const raw of list) {
    let d = String(raw).trim().toLowerCase();
    d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//, ''); // a scheme, if someone wrote a URL
    d = d.replace(/[/?#].*$/, ''); // a path
    d = d.replace(/^[^@]*@/, ''); // credentials
    d = d.replace(/^(\*\.|\.)+/, '');
    if (d.startsWith('[')) d = d.replace(/^\[([^\]]*)\](:\d*)?$/, '$1');
    else if (d.indexOf(':') === d.lastIndexOf(':')) d = d.replace(/:\d*$/, ''); // a port, unless a bare IPv6 address
    d = d.replace(/\.+$/, '');
    if (d === '') continue;
    if (!d.includes(':')) {
      const ascii = domainToASCII(d);
      if (ascii !== '') d = ascii;
    }
    if (!out.includes(d)) out.push(d);
  }
  return out;
}

/** The first result of each URL. */
export function dedupe(results: SearchResult[]): SearchResult[] {
  const seen = new Set<string>();
  return results.filter((r) => (seen.has(r.url) ? false : (seen.add(r.url), true)));
}
