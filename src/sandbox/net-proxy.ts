// A session's network, when it has one (`sandbox_network` other than false): its processes still
// live in a network namespace of their own, with nothing but loopback and no resolver. HTTP and
// HTTPS (and TCP a rule names by host and port) leave through this proxy, which each process
// reaches on a Unix socket of its own bound into its sandbox (socat carries 127.0.0.1:3128
// there): so the proxy knows which call's process connects. Names are resolved here, only for a
// connection the rules (or a person) allowed:
//   - plain HTTP by the request's URL and Host; CONNECT by its host, then the first bytes: a TLS
//     ClientHello must name that host (SNI, no encrypted hello), HTTP must name it in Host, and
//     anything else is TCP, which needs a rule naming the host and port;
//   - the egress guard checks every address the name resolves to (loopback, private, link-local,
//     metadata … refused unless NORMA_EGRESS_ALLOW opens them), the connection is pinned to the
//     checked address, the server's own listening addresses are refused whatever the allowlist
//     says, an explicit NORMA_EGRESS_PROXY is used or the request fails;
//   - in a session with secrets, TLS is terminated here with the session's own authority
//     (net/ca.ts), so placeholders become values only for their hosts (net/forward.ts), and the
//     real server's certificate is verified against the system's store;
//   - every request (or tunnel) leaves an `egress.request` evidence record.
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { checkTarget, EgressRefusal, type EgressEvidence, type EgressPolicy } from './egress.js';
import type { SessionAuthority } from './net/ca.js';
import { forwardRequest, type ForwardEvidence, type ForwardTarget } from './net/forward.js';
import { ANY_PLACEHOLDER, type SecretBinding } from './net/secrets.js';
import { connectTarget, isOwnAddress, readFirstBytes, replayed, urlHost } from './net/sockets.js';
import { Upstream } from './net/upstream.js';


export interface ProxyEvidence extends EgressEvidence {
  host?: string;
  port?: number;
  scheme?: 'http' | 'https' | 'tcp';
  /** The rule(s) that allowed the connection (absent: the mode, or refused). */
  rules?: string[];
  /** Secrets put into the request, by name. */
  secrets?: string[];
  request_bytes?: number;
  /** SHA-256 (hex) of the request body as the process sent it (placeholders, not values). */
  request_sha256?: string;
  tool_use_id?: string;
  turn_id?: string;
}

/** Who connects: the call whose process it is (null for a process no call started, such as an MCP server). */
export interface ConnectionOrigin {
  toolUseId: string | null;
  turnId: string | null;
  /**
   * What started the process: a call (Bash, a background task, a PTY shell), an MCP server or a
   * command hook that asked for the network (those two have it even in a session without one).
   */
  kind?: 'call' | 'mcp' | 'hook';
  /** A refused connection, in words, for the call's result. */
  refused?(why: string): void;
}

export interface ProxyTarget {
  host: string;
  port: number;
  scheme: 'http' | 'https' | 'tcp';
}

export type ProxyDecision = { allow: true; rules: string[] } | { allow: false; reason: string };

/**
 * The scope's first look at a CONNECT, before its protocol is known: refused whatever it carries
 * (`refuse`), or `tcp`: a rule allows any protocol there (the first bytes are then waited for only
 * briefly: a protocol whose server speaks first has nothing to say).
 */
export interface Precheck {
  refuse?: string;
  tcp?: boolean;
}

/** The session's network scope as the proxy consults it (src/session/network.ts makes it). */
export interface NetworkScope {
  /** What may not be reached whatever the protocol (refused before a tunnel opens). */
  precheck(t: { host: string; port: number }, origin: ConnectionOrigin): Precheck;
  /** The verdict on a connection: rules, and a person where they ask; `gone` aborts when the connection closes. */
  decide(t: ProxyTarget, origin: ConnectionOrigin, gone: AbortSignal): Promise<ProxyDecision>;
}

export interface NetProxyOptions {
  /** Where the processes' sockets are made (private to the server). */
  dir: string;
  policy: EgressPolicy;
  /** NORMA_EGRESS_PROXY: tunnels and requests go through it or fail. */
  upstream?: string;
  /** The server's own listening sockets, refused as targets. */
  ownAddresses: () => { address: string; port: number }[];
  onEvidence: (e: ProxyEvidence) => void;
  clock?: () => Date;
  /** What may not be reached whatever the protocol (refused before a tunnel opens); null: go on. */
  precheck?: (t: { host: string; port: number }, origin: ConnectionOrigin) => Precheck;
  /** The scope's verdict on a connection: rules, and a person where they ask. Default: HTTP(S) anywhere. */
  decide?: (t: ProxyTarget, origin: ConnectionOrigin, gone: AbortSignal) => Promise<ProxyDecision>;
  /** The session's secrets: with any, TLS is terminated here. */
  secrets?: () => readonly SecretBinding[];
  /** The authority TLS is terminated with; undefined: processes do not trust one, TLS stays end to end. */
  authority?: () => SessionAuthority | undefined;
  /** The certificates real servers are verified against (default: Node's store). */
  upstreamCa?: () => string[] | undefined;
  /** Connections open at once (default 128). */
  maxConnections?: number;
  connectTimeoutMs?: number;
  /** A tunnel or request silent this long is closed (default 10 min). */
  idleTimeoutMs?: number;
  /** How long a tunnel's first bytes are waited for before it counts as TCP (default 10 s). */
  firstBytesMs?: number;
}

interface Inner {
  target: ForwardTarget;
  origin: ConnectionOrigin;
  send: (o: http.RequestOptions) => http.ClientRequest;
}

/** How long a tunnel a rule opens to any protocol waits for the process to speak first. */
const TCP_FIRST_BYTES_MS = 300;


export class SandboxNetProxy {
  /** Absolute-form requests and CONNECT from the processes. */
  private readonly server: http.Server;
  /** Requests inside tunnels (plain HTTP, or TLS terminated here). */
  private readonly inner: http.Server;
  private readonly listeners = new Set<net.Server>();
  private readonly sockets = new Set<net.Socket | Duplex>();
  private readonly origins = new WeakMap<object, ConnectionOrigin>();
  private readonly inners = new WeakMap<object, Inner>();
  private readonly clock: () => Date;
  private seq = 0;
  private open = 0;
  private readonly upstream: Upstream;

  constructor(private readonly o: NetProxyOptions) {
    this.clock = o.clock ?? (() => new Date());
    this.upstream = new Upstream(o);
    this.server = http.createServer({ requestTimeout: 0 });
    this.server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void this.absolute(req, res));
    this.server.on('clientError', (_err, socket: net.Socket) => socket.destroy());
    this.inner = http.createServer({ requestTimeout: 0 });
    this.inner.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.innerRequest(req, res));
    this.inner.on('connect', (_req, socket: net.Socket) => socket.destroy());
    this.inner.on('upgrade', (_req, socket: net.Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\nconnection: close\r\n\r\n'));
    this.inner.on('clientError', (_err, socket: net.Socket) => socket.destroy());
  }

  /** A socket for one process (its connections are the origin's); closed with the process. */
  async endpoint(origin: ConnectionOrigin): Promise<{ socketPath: string; close: () => Promise<void> }> {
    await fs.mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    const socketPath = path.join(this.o.dir, `p${++this.seq}.sock`);
    await fs.rm(socketPath, { force: true });
    // Half-open allowed: a tunnelled protocol may read its answer after it finished writing.
    const listener = net.createServer({ allowHalfOpen: true, noDelay: true }, (s) => this.accept(s, origin));
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(socketPath, () => {
        listener.off('error', reject);
        resolve();
      });
    });
    this.listeners.add(listener);
    // Processes inside are the server's user (or the sandbox's, handed the socket); nobody else.
    await fs.chmod(socketPath, 0o600);
    const close = async () => {
      if (!this.listeners.delete(listener)) return;
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await fs.rm(socketPath, { force: true });
    };
    return { socketPath, close };
  }

  private accept(s: net.Socket, origin: ConnectionOrigin): void {
    if (this.open >= (this.o.maxConnections ?? 128)) {
      origin.refused?.(`more than ${this.o.maxConnections ?? 128} connections at once: refused`);
      s.destroy();
      return;
    }
    this.open++;
    this.sockets.add(s);
    s.once('close', () => {
      this.open--;
      this.sockets.delete(s);
    });
    this.origins.set(s, origin);
    this.server.emit('connection', s);
  }

  async close(): Promise<void> {
    for (const l of [...this.listeners]) l.close();
    this.listeners.clear();
    for (const s of this.sockets) s.destroy();
    this.upstream.close();
    await fs.rm(this.o.dir, { recursive: true, force: true });
  }

  /** Checks a target as the guard does, plus the server's own addresses. */
  private async check(host: string, port: number): Promise<string> {
    const t = await checkTarget(`http://${urlHost(host)}:${port}/`, this.o.policy);
    if (isOwnAddress(t.address, port, this.o.ownAddresses())) {
      throw new EgressRefusal(`${t.address}:${port} is this server's own address: sandboxed processes never reach it`);
    }
    return t.address;
  }

  /** `socket`'s close aborts the wait (a person is no longer asked for a connection nobody holds). */
  private decide(t: ProxyTarget, origin: ConnectionOrigin, socket: net.Socket): Promise<ProxyDecision> {
    if (this.o.decide) {
      const gone = new AbortController();
      const onClose = () => gone.abort();
      socket.once('close', onClose);
      return this.o.decide(t, origin, gone.signal).finally(() => socket.off('close', onClose));
    }
    return Promise.resolve(t.scheme === 'tcp' ? { allow: false, reason: `${t.host}:${t.port}: only HTTP and HTTPS leave the sandbox` } : { allow: true, rules: [] });
  }

  private evidence(origin: ConnectionOrigin, e: Omit<ProxyEvidence, 'time' | 'duration_ms'> & { started: number }): void {
    const { started, ...rest } = e;
    this.o.onEvidence({
      time: new Date(this.clock().getTime() - Math.round(performance.now() - started)).toISOString(),
      ...rest,
      ...(rest.rules && rest.rules.length === 0 ? { rules: undefined } : {}),
      ...(rest.secrets && rest.secrets.length === 0 ? { secrets: undefined } : {}),
      ...(origin.toolUseId ? { tool_use_id: origin.toolUseId } : {}),
      ...(origin.turnId ? { turn_id: origin.turnId } : {}),
      duration_ms: Math.round(performance.now() - started),
    });
  }

  private async tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    const origin = this.origins.get(client) ?? { toolUseId: null, turnId: null };
    const started = performance.now();
    const target = connectTarget(req.url ?? '');
    const base = { method: 'CONNECT', url: (req.url ?? '').slice(0, 300), address: '', status: null as number | null, bytes: 0, sha256: null, started };
    const refuse = (why: string, opened: boolean, extra: Partial<ProxyEvidence> = {}) => {
      origin.refused?.(why);
      if (opened) client.destroy();
      else client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nx-norma-egress-refusal: ${why.replace(/[\r\n]/g, ' ').slice(0, 500)}\r\nconnection: close\r\n\r\nnorma egress: ${why}\n`);
      this.evidence(origin, { ...base, status: opened ? null : 403, error: why, ...extra });
    };
    if (!target) return refuse(`${JSON.stringify((req.url ?? '').slice(0, 200))} is not host:port`, false);
    base.url = `${urlHost(target.host)}:${target.port}`;
    const where = { host: target.host, port: target.port };
    if (ANY_PLACEHOLDER.test(target.host)) return refuse(`a secret's placeholder in a host name (${target.host.slice(0, 100)}) is never resolved`, false, where);
    const early = this.o.precheck?.(target, origin) ?? {};
    if (early.refuse) return refuse(early.refuse, false, where);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const first = await readFirstBytes(client, head, early.tcp ? TCP_FIRST_BYTES_MS : (this.o.firstBytesMs ?? 10_000));
    if (first.kind === 'closed') {
      client.destroy();
      return this.evidence(origin, { ...base, ...where, error: 'the process closed the tunnel before sending anything' });
    }
    const seen = first.what;
    if (seen.kind === 'malformed') return refuse(`${base.url}: ${seen.why}`, true, where);
    if (seen.kind === 'tls') {
      if (seen.ech) return refuse(`${base.url}: an encrypted ClientHello hides the name it asks for; it is refused`, true, where);
      if (seen.sni === null && net.isIP(target.host) === 0) return refuse(`${base.url}: the TLS ClientHello names no host (SNI); one naming ${target.host} is required`, true, where);
      if (seen.sni !== null && seen.sni !== target.host) return refuse(`${base.url}: the TLS ClientHello asks for ${seen.sni}, not the host the tunnel was opened for`, true, where);
    }
    const scheme = seen.kind === 'tls' ? 'https' : seen.kind === 'http' ? 'http' : 'tcp';
    const decision = await this.decide({ ...target, scheme }, origin, client);
    if (client.destroyed) return;
    if (!decision.allow) return refuse(decision.reason, true, { ...where, scheme });
    let address: string;
    try {
      address = await this.check(target.host, target.port);
    } catch (err) {
      return refuse(`${base.url}: ${(err as Error).message}`, true, { ...where, scheme });
    }
    const fwd: ForwardTarget = { host: target.host, port: target.port, scheme: scheme === 'tcp' ? 'http' : scheme, address, rules: decision.rules };
    const ca = scheme === 'https' && (this.o.secrets?.().length ?? 0) > 0 ? this.o.authority?.() : undefined;
    if (ca) {
      // Given back to the socket: TLS reads what a socket holds before its own reads.
      client.unshift(first.bytes);
      return this.terminate(client, fwd, origin, ca);
    }
    if (scheme === 'http') {
      const stream = replayed(client, first.bytes);
      this.sockets.add(stream);
      stream.once('close', () => this.sockets.delete(stream));
      return this.serveInner(stream, { target: fwd, origin, ...this.upstream.sender(fwd, false) });
    }
    this.pipeTunnel(client, first.bytes, { ...target, scheme }, address, decision.rules, origin, started);
  }

  private pipeTunnel(client: net.Socket, first: Buffer, t: ProxyTarget, address: string, rules: string[], origin: ConnectionOrigin, started: number): void {
    const base = { method: 'CONNECT', url: `${urlHost(t.host)}:${t.port}`, host: t.host, port: t.port, scheme: t.scheme, address, rules, sha256: null, started };
    void this.upstream.connect(t, address).then(
      (upstream) => {
        if (client.destroyed) return upstream.destroy();
        this.sockets.add(upstream);
        upstream.once('close', () => this.sockets.delete(upstream));
        const idle = this.o.idleTimeoutMs ?? 600_000;
        upstream.setTimeout(idle, () => upstream.destroy());
        client.setTimeout(idle, () => client.destroy());
        let bytes = 0;
        let sent = first.length;
        if (first.length > 0) upstream.write(first);
        upstream.on('data', (d: Buffer) => (bytes += d.length));
        client.on('data', (d: Buffer) => (sent += d.length));
        upstream.pipe(client);
        client.pipe(upstream);
        client.resume();
        // Each side's end is passed on (half-close: a protocol may read after it wrote all);
        // the evidence is written once both are gone, and an error ends both.
        let closed = 0;
        let error: Error | undefined;
        const onClose = () => {
          if (++closed < 2) return;
          this.evidence(origin, { ...base, status: 200, bytes, request_bytes: sent, ...(error ? { error: error.message } : {}) });
        };
        const onError = (err: Error) => {
          error ??= err;
          upstream.destroy();
          client.destroy();
        };
        upstream.once('close', onClose);
        client.once('close', onClose);
        upstream.once('error', onError);
        client.once('error', onError);
      },
      (err: Error) => {
        origin.refused?.(err.message);
        client.destroy();
        this.evidence(origin, { ...base, status: 502, bytes: 0, error: err.message });
      },
    );
  }

  /** Terminates a process's TLS with a certificate of the session's authority for the host. */
  private terminate(socket: net.Socket, t: ForwardTarget, origin: ConnectionOrigin, authority: SessionAuthority): void {
    const leaf = authority.leaf(t.host);
    const secure = new tls.TLSSocket(socket, { isServer: true, cert: leaf.cert, key: leaf.key, ALPNProtocols: ['http/1.1'] });
    this.sockets.add(secure);
    secure.once('close', () => this.sockets.delete(secure));
    secure.once('secure', () => this.serveInner(secure, { target: t, origin, ...this.upstream.sender(t, true) }));
    secure.once('error', () => secure.destroy());
  }

  private serveInner(socket: net.Socket | Duplex, inner: Inner): void {
    this.inners.set(socket, inner);
    this.inner.emit('connection', socket);
  }

  private innerRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const inner = this.inners.get(req.socket);
    if (!inner) {
      res.destroy();
      return;
    }
    forwardRequest(req, res, req.url ?? '/', this.forwardContext(inner));
  }

  private forwardContext(inner: Inner) {
    return {
      target: inner.target,
      secrets: this.o.secrets?.() ?? [],
      send: inner.send,
      refused: (why: string) => inner.origin.refused?.(why),
      evidence: (e: ForwardEvidence) => this.evidence(inner.origin, { ...e, sha256: e.sha256 }),
    };
  }

  /** A plain `http://` request through the proxy (absolute form). */
  private async absolute(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const origin = this.origins.get(req.socket) ?? { toolUseId: null, turnId: null };
    const started = performance.now();
    const raw = req.url ?? '';
    const refuse = (status: number, why: string, extra: Partial<ProxyEvidence> = {}) => {
      origin.refused?.(why);
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain', 'x-norma-egress-refusal': why.replace(/[\r\n]/g, ' ').slice(0, 500), connection: 'close' });
      res.end(`norma egress: ${why}\n`);
      this.evidence(origin, { method: req.method ?? 'GET', url: raw.slice(0, 2048), address: '', status, bytes: 0, sha256: null, error: why, started, ...extra });
      req.resume();
    };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse(400, 'only proxy requests (an absolute http:// URL, or CONNECT) are served here');
    }
    if (url.protocol !== 'http:') return refuse(400, `${url.protocol} requests must use CONNECT`);
    if (url.username || url.password) return refuse(403, 'URLs with credentials (user:password@) are not forwarded; send an Authorization header');
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
    const port = Number(url.port || 80);
    const where = { host, port, scheme: 'http' as const };
    if (ANY_PLACEHOLDER.test(host)) return refuse(403, `a secret's placeholder in a host name (${host.slice(0, 100)}) is never resolved`, where);
    const decision = await this.decide(where, origin, req.socket);
    if (!decision.allow) return refuse(403, decision.reason, where);
    let address: string;
    try {
      address = await this.check(host, port);
    } catch (err) {
      return refuse(403, (err as Error).message, where);
    }
    const target: ForwardTarget = { host, port, scheme: 'http', address, rules: decision.rules };
    const up = this.o.upstream ? new URL(this.o.upstream) : null;
    const send = (o: http.RequestOptions) =>
      http.request({
        ...o,
        host: up ? up.hostname.replace(/^\[|\]$/g, '') : address,
        port: up ? Number(up.port || 80) : port,
        ...(up ? { path: `http://${url.host}${o.path ?? '/'}` } : {}),
        agent: false,
        timeout: this.o.idleTimeoutMs ?? 600_000,
      });
    forwardRequest(req, res, `${url.pathname}${url.search}`, { ...this.forwardContext({ target, origin, send }) });
  }
}
