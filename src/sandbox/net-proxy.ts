// A session's network, when it has one (`sandbox_network: true`): its processes still live in a
// network namespace of their own, with nothing but loopback; HTTP and HTTPS leave through this
// proxy, which listens on a Unix socket bound into the sandbox (socat carries 127.0.0.1:3128
// there). Every connection goes through the egress guard exactly like the web tools' requests:
// the name is resolved once and every address checked (loopback, private, link-local, metadata
// … refused unless NORMA_EGRESS_ALLOW opens them), the connection is pinned to the checked
// address, the server's own listening addresses are refused whatever the allowlist says, an
// explicit NORMA_EGRESS_PROXY is used or the request fails, and each tunnel or request leaves an
// `egress.request` evidence record. Other protocols (DNS lookups, ssh, raw TCP, UDP) have no
// route out.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { checkTarget, EgressRefusal, type EgressEvidence, type EgressPolicy } from './egress.js';

export type ProxyEvidence = EgressEvidence;

export interface NetProxyOptions {
  socketPath: string;
  policy: EgressPolicy;
  /** NORMA_EGRESS_PROXY: tunnels and requests go through it or fail. */
  upstream?: string;
  /** The server's own listening sockets, refused as targets. */
  ownAddresses: () => { address: string; port: number }[];
  onEvidence: (e: ProxyEvidence) => void;
  clock?: () => Date;
  /** Connections open at once (default 64). */
  maxConnections?: number;
  connectTimeoutMs?: number;
  /** A tunnel or request silent this long is closed (default 10 min). */
  idleTimeoutMs?: number;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function norm(address: string): string {
  try {
    return ipaddr.process(address).toString();
  } catch {
    return address;
  }
}

/** Is `address:port` a socket this server listens on? (an unspecified bind covers every local address) */
export function isOwnAddress(address: string, port: number, own: { address: string; port: number }[]): boolean {
  const a = norm(address);
  for (const l of own) {
    if (l.port !== port) continue;
    const la = norm(l.address);
    if (la === a) return true;
    if (la === '0.0.0.0' || la === '::') {
      if (ipaddr.process(a).range() === 'loopback') return true;
      for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) if (norm(i.address) === a) return true;
    }
  }
  return false;
}

/** host:port of a CONNECT request (`[v6]:port` too). */
function authority(raw: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(raw);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2])!.toLowerCase(), port };
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export class SandboxNetProxy {
  private readonly server: http.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly clock: () => Date;

  constructor(private readonly o: NetProxyOptions) {
    this.clock = o.clock ?? (() => new Date());
    this.server = http.createServer({ requestTimeout: 0 });
    this.server.maxConnections = o.maxConnections ?? 64;
    this.server.on('connection', (s: net.Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    this.server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void this.forward(req, res));
    this.server.on('clientError', (_err, socket: net.Socket) => socket.destroy());
  }

  async listen(): Promise<void> {
    await fs.rm(this.o.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.o.socketPath, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    // Processes inside are the server's user; nobody else needs the socket.
    await fs.chmod(this.o.socketPath, 0o600);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await fs.rm(this.o.socketPath, { force: true });
  }

  /** Checks a target as the guard does, plus the server's own addresses. */
  private async check(url: string, port: number): Promise<{ address: string; family: 4 | 6 }> {
    const t = await checkTarget(url, this.o.policy);
    if (isOwnAddress(t.address, port, this.o.ownAddresses())) {
      throw new EgressRefusal(`${t.address}:${port} is this server's own address: sandboxed processes never reach it`);
    }
    return t;
  }

  private evidence(base: { method: string; url: string; started: number; time: string }, rest: Partial<ProxyEvidence>): void {
    this.o.onEvidence({
      time: base.time,
      method: base.method,
      url: base.url,
      address: rest.address ?? '',
      status: rest.status ?? null,
      bytes: rest.bytes ?? 0,
      sha256: rest.sha256 ?? null,
      duration_ms: Math.round(performance.now() - base.started),
      ...(rest.error ? { error: rest.error } : {}),
    });
  }

  private async tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    const base = { method: 'CONNECT', url: req.url ?? '', started: performance.now(), time: this.clock().toISOString() };
    const refuse = (status: number, why: string, address = '') => {
      client.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\ncontent-type: text/plain\r\nx-norma-egress-refusal: ${why.replace(/[\r\n]/g, ' ').slice(0, 500)}\r\nconnection: close\r\n\r\nnorma egress: ${why}\n`);
      this.evidence(base, { address, status, error: why });
    };
    const target = authority(req.url ?? '');
    if (!target) return refuse(403, `${JSON.stringify((req.url ?? '').slice(0, 200))} is not host:port`);
    base.url = `https://${urlHost(target.host)}:${target.port}`;
    let checked: { address: string };
    try {
      checked = await this.check(`${base.url}/`, target.port);
    } catch (err) {
      return refuse(403, (err as Error).message);
    }
    let bytes = 0;
    let upstream: net.Socket;
    try {
      upstream = await this.open(target, checked.address);
    } catch (err) {
      return refuse(502, (err as Error).message, checked.address);
    }
    this.sockets.add(upstream);
    upstream.once('close', () => this.sockets.delete(upstream));
    const idle = this.o.idleTimeoutMs ?? 600_000;
    upstream.setTimeout(idle, () => upstream.destroy());
    client.setTimeout(idle, () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.on('data', (d: Buffer) => (bytes += d.length));
    upstream.pipe(client);
    client.pipe(upstream);
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      upstream.destroy();
      client.destroy();
      this.evidence(base, { address: checked.address, status: 200, bytes, ...(err ? { error: err.message } : {}) });
    };
    upstream.once('close', () => finish());
    client.once('close', () => finish());
    upstream.once('error', finish);
    client.once('error', finish);
  }

  /** A TCP connection to the pinned address, or a CONNECT tunnel through the upstream proxy. */
  private open(target: { host: string; port: number }, address: string): Promise<net.Socket> {
    const timeoutMs = this.o.connectTimeoutMs ?? 30_000;
    return new Promise<net.Socket>((resolve, reject) => {
      if (!this.o.upstream) {
        const s = net.connect({ host: address, port: target.port });
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

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = req.url ?? '';
    const base = { method: req.method ?? 'GET', url: raw.slice(0, 2048), started: performance.now(), time: this.clock().toISOString() };
    const refuse = (status: number, why: string, address = '') => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain', 'x-norma-egress-refusal': why.replace(/[\r\n]/g, ' ').slice(0, 500), connection: 'close' });
      res.end(`norma egress: ${why}\n`);
      this.evidence(base, { address, status, error: why });
    };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse(400, 'only proxy requests (an absolute http:// URL, or CONNECT for https) are served here');
    }
    if (url.protocol !== 'http:') return refuse(400, `${url.protocol} requests must use CONNECT`);
    const port = Number(url.port || 80);
    let checked: { address: string };
    try {
      checked = await this.check(url.toString(), port);
    } catch (err) {
      return refuse(403, (err as Error).message);
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k.toLowerCase())) headers[k] = v;
    headers.host = url.host;
    const up = this.o.upstream ? new URL(this.o.upstream) : null;
    const out = http.request({
      host: up ? up.hostname.replace(/^\[|\]$/g, '') : checked.address,
      port: up ? Number(up.port || 80) : port,
      method: req.method,
      path: up ? url.toString() : `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      timeout: this.o.idleTimeoutMs ?? 600_000,
    });
    out.once('timeout', () => out.destroy(new Error('no answer in time')));
    out.once('error', (e) => refuse(502, `${url.host}: ${e.message}`, checked.address));
    out.once('response', (r) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const h: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(r.headers)) if (v !== undefined && !HOP_BY_HOP.has(k.toLowerCase())) h[k] = v;
      res.writeHead(r.statusCode ?? 502, h);
      r.on('data', (d: Buffer) => {
        bytes += d.length;
        hash.update(d);
      });
      r.pipe(res);
      r.once('end', () => this.evidence(base, { address: checked.address, status: r.statusCode ?? null, bytes, sha256: hash.digest('hex') }));
      r.once('error', (e) => this.evidence(base, { address: checked.address, status: r.statusCode ?? null, bytes, error: e.message }));
    });
    req.pipe(out);
  }
}
