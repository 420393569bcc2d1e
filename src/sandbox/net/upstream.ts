// Where a session's proxy sends what it forwards: TCP to the checked address (or a CONNECT tunnel
// through NORMA_EGRESS_PROXY), and for requests it reads, kept connections per host.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { ForwardTarget } from './forward.js';
import { urlHost } from './sockets.js';

/** Hosts a session's proxy keeps upstream connections (and TLS sessions) for at once. */
const MAX_POOLS = 256;

export interface UpstreamOptions {
  /** NORMA_EGRESS_PROXY: tunnels and requests go through it or fail. */
  upstream?: string;
  /** The certificates real servers are verified against (default: Node's store). */
  upstreamCa?: () => string[] | undefined;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
}

export class Upstream {
  /** Kept upstream connections by host, port, address and protocol (see sender). */
  private readonly pools = new Map<string, http.Agent>();
  /** The last TLS session each server gave, to resume with. */
  private readonly tickets = new Map<string, Buffer>();

  constructor(private readonly o: UpstreamOptions) {}

  close(): void {
    for (const a of this.pools.values()) a.destroy();
    this.pools.clear();
  }

  /** A TCP connection to the pinned address, or a CONNECT tunnel through the upstream proxy. */
  connect(target: { host: string; port: number }, address: string): Promise<net.Socket> {
    const timeoutMs = this.o.connectTimeoutMs ?? 30_000;
    return new Promise<net.Socket>((resolve, reject) => {
      if (!this.o.upstream) {
        const s = net.connect({ host: address, port: target.port, allowHalfOpen: true, noDelay: true });
        s.setTimeout(timeoutMs, () => s.destroy(new Error(`${target.host}:${target.port} did not accept a connection within ${timeoutMs / 1000} s`)));
        s.once('connect', () => {
          s.setTimeout(0);
          resolve(s);
        });
        s.once('error', (e) => reject(new Error(`cannot connect to ${target.host}:${target.port} (${address}): ${e.message}`)));
        return;
      }
      const up = new URL(this.o.upstream);
      const req = http.request({
        host: up.hostname.replace(/^\[|\]$/g, ''),
        port: Number(up.port || 80),
        method: 'CONNECT',
        path: `${urlHost(target.host)}:${target.port}`,
        headers: { host: `${urlHost(target.host)}:${target.port}` },
        timeout: timeoutMs,
      });
      req.once('connect', (res, socket) => {
        if (res.statusCode === 200) resolve(socket);
        else {
          socket.destroy();
          reject(new Error(`the egress proxy refused the tunnel (HTTP ${res.statusCode}); it is not retried without the proxy`));
        }
      });
      req.once('timeout', () => req.destroy(new Error('the egress proxy did not answer')));
      req.once('error', (e) => reject(new Error(`the egress proxy failed (${e.message}); it is not retried without the proxy`)));
      req.end();
    });
  }

  /**
   * How requests for one host go upstream: a pool of kept connections per host, port, checked
   * address and protocol, shared by the session's processes (never by another session's: each
   * session has its own proxy), TLS verified against the system's store and resumed with the
   * session ticket the server gave last. A kept connection idle 15 s is closed.
   */
  sender(t: ForwardTarget, secure: boolean): { send: (o: http.RequestOptions) => http.ClientRequest } {
    const key = `${secure ? 's' : 'p'}|${t.host}|${t.port}|${t.address}`;
    let agent = this.pools.get(key);
    if (!agent) {
      if (this.pools.size >= MAX_POOLS) {
        const [oldest, a] = this.pools.entries().next().value!;
        this.pools.delete(oldest);
        a.destroy();
      }
      agent = new http.Agent({ keepAlive: true, maxSockets: 32, maxFreeSockets: 4, timeout: 15_000 });
      (agent as unknown as { createConnection: unknown }).createConnection = (_opts: unknown, cb: (err: Error | null, s?: net.Socket) => void) => {
        void this.connect(t, t.address).then(
          (raw) => {
            if (!secure) return cb(null, raw);
            const ca = this.o.upstreamCa?.();
            const ticket = `${t.host}|${t.port}`;
            const s = tls.connect({
              socket: raw,
              servername: net.isIP(t.host) ? undefined : t.host,
              ...(ca ? { ca } : {}),
              ALPNProtocols: ['http/1.1'],
              ...(this.tickets.has(ticket) ? { session: this.tickets.get(ticket) } : {}),
            } as tls.ConnectionOptions);
            s.on('session', (session: Buffer) => {
              if (this.tickets.size >= MAX_POOLS) this.tickets.delete(this.tickets.keys().next().value!);
              this.tickets.set(ticket, session);
            });
            s.once('secureConnect', () => cb(null, s));
            s.once('error', (e) => {
              this.tickets.delete(ticket);
              cb(new Error(`TLS with ${t.host}:${t.port}: ${e.message}`));
            });
          },
          (err: Error) => cb(err),
        );
        return undefined;
      };
      this.pools.set(key, agent);
    }
    const pool = agent;
    return { send: (o) => http.request({ ...o, agent: pool, timeout: this.o.idleTimeoutMs ?? 600_000 }) };
  }
}
