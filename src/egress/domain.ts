// Host patterns as rules (`Network(domain:…)`, `WebFetch(domain:…)`) and secrets' `hosts` write
// them: `example.com`, `*.example.com` (subdomains only), either with an optional `:port`; IPv6
// addresses in brackets. One parser and one matcher for every place a host is named.

/** `host`, `*.host` (subdomains only), optionally with a port (absent: any port). */
export interface DomainPattern {
  host: string;
  subdomains: boolean;
  port?: number;
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Parses `domain:<host>`, `domain:*.<host>`, each optionally with `:<port>` (IPv6 in brackets). */
export function parseDomain(spec: string): DomainPattern | string {
  if (!spec.startsWith('domain:')) return 'the specifier must be "domain:<host>", "domain:*.<host>" or either with ":<port>"';
  const written = spec.slice('domain:'.length).trim();
  let host = written.toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) return `"${written}" is a URL: a rule names a host (and optionally a port), without a scheme`;
  if (host.includes('/')) return `"${written}" has a path: a rule names a host (and optionally a port), without a path`;
  if (host.includes('@')) return `"${written}" has user information: a rule names a host (and optionally a port)`;
  let port: number | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(host);
  let portText: string | undefined;
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2];
  } else if (host.split(':').length === 2) {
    [host, portText] = host.split(':') as [string, string];
  }
  if (portText !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return `"${portText}" is not a port (1-65535)`;
    port = Number(portText);
  }
  const subdomains = host.startsWith('*.');
  if (subdomains) host = host.slice(2);
  if (host.includes('*')) return `"${written}": a "*." prefix is the only wildcard (none in the middle or at the end)`;
  if (host.endsWith('.')) host = host.slice(0, -1);
  const ipv6 = host.includes(':');
  if (ipv6 ? !/^[0-9a-f:.]+$/.test(host) : !host.split('.').every((l) => HOST_LABEL.test(l))) {
    return `"${written}" is not a host name (a "*." prefix is the only wildcard)`;
  }
  if (subdomains && ipv6) return 'an IP address has no subdomains';
  if (subdomains && /^[0-9.]+$/.test(host)) return 'an IP address has no subdomains';
  return { host, subdomains, ...(port !== undefined ? { port } : {}) };
}

/** Does a domain pattern cover a host (and port: a pattern without one covers every port)? */
export function hostMatches(d: DomainPattern, host: string, port?: number): boolean {
  if (d.port !== undefined && d.port !== port) return false;
  return d.subdomains ? host.endsWith(`.${d.host}`) : host === d.host;
}

