// Which requests are for this server at all (DNS rebinding) and which may change state
// (cross-site requests from browsers). Both are decided before any route runs.
//
// Host: a browser tricked by DNS rebinding sends the attacker's name (`Host: evil.example`) to
// our loopback address. Served are the loopback names (`localhost`, `127.0.0.1`, `[::1]`) on any
// port — an SSH tunnel, a dev server's proxy or a port-mapped container name another port, and a
// rebinding attack needs a name of its own, never a loopback one —, the bind address (every local
// address for an unspecified bind) with the listening port, and the names in NORMA_ALLOWED_HOSTS
// (an entry without a port allows any port: a proxy in front); `*` turns the check off. A refusal
// says how to serve the name.
//
// Origin: a request that carries an Origin must come from the server's own origin or one of
// NORMA_CORS_ORIGINS; any other (a `null` one included) is refused, whatever the method. A
// request that changes state (anything but GET, HEAD, OPTIONS) without an Origin but with a
// browser's `Sec-Fetch-Site: cross-site`/`same-site` is refused too. Clients that are not
// browsers send neither. Both checks stay in force with CORS on: CORS only adds the origins.
import os from 'node:os';
import net from 'node:net';

export interface HostEntry {
  host: string;
  /** null: any port. */
  port: number | null;
}

/** `name`, `name:port`, `[v6]`, `[v6]:port` → lower-case host (brackets kept for v6) and port. */
export function parseHostHeader(value: string): HostEntry | null {
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(v);
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && port > 65535) return null;
  let host = m[1]!;
  if (host.endsWith('.')) host = host.slice(0, -1);
  return { host, port };
}

function bracket(address: string): string {
  return net.isIPv6(address) ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/** The loopback names, served on any port. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The default names: loopback, and the bind address (every interface address when unspecified). */
export function defaultAllowedHosts(bindHost: string): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const bare = bindHost.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === '0.0.0.0' || bare === '::') {
    for (const list of Object.values(os.networkInterfaces())) {
      for (const i of list ?? []) if (!i.address.includes('%')) names.add(bracket(i.address));
    }
  } else names.add(bracket(bare));
  return [...names];
}

export interface RequestGate {
  /** Null when the Host is served; otherwise why not. */
  checkHost(hostHeader: string | undefined, listeningPort: number | null): string | null;
  /** Null when the request may change state; otherwise why not. */
  checkOrigin(method: string, origin: string | undefined, fetchSite: string | undefined, hostHeader: string | undefined): string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function requestGate(allowedHosts: string[] | null, bindHost: string, corsOrigins: readonly string[] = []): RequestGate {
  const any = allowedHosts?.includes('*') ?? false;
  const explicit = (allowedHosts ?? []).filter((h) => h !== '*').map((h) => parseHostHeader(h)).filter((e): e is HostEntry => e !== null);
  const defaults = defaultAllowedHosts(bindHost);
  return {
    checkHost(hostHeader, listeningPort) {
      if (any) return null;
      if (hostHeader === undefined || hostHeader === '') return 'the request has no Host header';
      const h = parseHostHeader(hostHeader);
      if (!h) return `Host ${JSON.stringify(hostHeader.slice(0, 200))} is not a host name`;
      const port = h.port ?? 80;
      if (LOOPBACK_NAMES.has(h.host)) return null;
      // The bind address carries the listening port (unknown only for in-process requests).
      if (defaults.includes(h.host) && (listeningPort === null || port === listeningPort)) return null;
      for (const e of explicit) {
        if (e.host !== h.host) continue;
        if (e.port === null || e.port === port) return null;
      }
      // A name the check refuses is a plain host name or address (parseHostHeader): safe to quote.
      return `Host ${JSON.stringify(hostHeader.slice(0, 200))} is not served here: this server answers to loopback names on any port, its bind address, and the names in NORMA_ALLOWED_HOSTS. To serve this name, start the server with NORMA_ALLOWED_HOSTS=${h.host.slice(0, 200)} (or add it to the list)`;
    },
    checkOrigin(method, origin, fetchSite, hostHeader) {
      if (origin === undefined) {
        if (SAFE_METHODS.has(method.toUpperCase())) return null;
        return fetchSite === 'cross-site' || fetchSite === 'same-site' ? `a ${fetchSite} browser request may not change state here` : null;
      }
      if (corsOrigins.includes(origin)) return null;
      if (origin === 'null') return 'a request from an opaque origin ("null") is not allowed here';
      let u: URL;
      try {
        u = new URL(origin);
      } catch {
        return `Origin ${JSON.stringify(origin.slice(0, 200))} is not an origin`;
      }
      // The page's own origin: the same host[:port] as the request names (http, or https behind
      // a TLS proxy); default ports are left out on both sides.
      const own = (hostHeader ?? '').trim().toLowerCase().replace(/:(80|443)$/, '');
      if ((u.protocol === 'http:' || u.protocol === 'https:') && own !== '' && u.host === own) return null;
      return corsOrigins.length > 0
        ? `Origin ${JSON.stringify(origin.slice(0, 200))} is neither this server's origin nor one of NORMA_CORS_ORIGINS`
        : `Origin ${JSON.stringify(origin.slice(0, 200))} is not this server's origin, and CORS is off (NORMA_CORS_ORIGINS lists the origins that may call this server)`;
    },
  };
}
