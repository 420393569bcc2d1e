// What a session's networked processes are given: the session's egress proxy (made on first
// need), a socket of it for each process, the session's certificate authority when the proxy
// terminates TLS, and the CA bundle and fetch preload (net/trust.ts) they trust and load.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EgressPolicy } from '../egress.js';
import { SandboxNetProxy, type ConnectionOrigin, type NetworkScope, type ProxyEvidence } from '../net-proxy.js';
import type { SandboxHost } from '../process.js';
import { exposeSocket } from '../session-dirs.js';
import { SessionAuthority } from './ca.js';
import type { SecretBinding } from './secrets.js';
import { trustFiles, type TrustFiles } from './trust.js';

export interface ProcessNetworkOptions {
  sessionId: string;
  /** The session's state directory; the proxy's sockets go in `net/` below it. */
  stateDir: string;
  /** Where the way to them is opened from (the server's data directory). */
  stateRoot: string;
  egress: EgressPolicy;
  upstreamProxy?: string;
  ownAddresses: () => { address: string; port: number }[];
  onEgress: (e: ProxyEvidence) => void;
  clock?: () => Date;
  /** The network scope: refusals known before a tunnel opens, and the verdict on each connection. */
  scope?: NetworkScope;
  /** The session's secrets (their placeholders go in every process's environment; their values stay in the proxy). */
  secrets?: () => readonly SecretBinding[];
  /** The certificates real servers are verified against when the proxy terminates TLS. */
  upstreamCa?: () => string[] | undefined;
  /** node_modules/undici, for the fetch preload (default: found from here). */
  undiciDir?: string;
}

export class ProcessNetwork {
  private proxy: Promise<{ server: SandboxNetProxy; reachFrom: string; dir: string }> | undefined;
  private authority: SessionAuthority | undefined;
  /**
   * Whether the processes' bundle holds the authority (decided with the first networked process,
   * from the secrets in force then: one a policy reload adds later is put in by the proxy over
   * plain HTTP, and over HTTPS from the session's next start).
   */
  private intercepting = false;
  private trust: Promise<TrustFiles> | undefined;

  constructor(
    private readonly host: SandboxHost,
    private readonly o: ProcessNetworkOptions,
  ) {}

  /** A proxy socket for one process (close it when the process ends) and the files it is given. */
  async forProcess(origin: ConnectionOrigin): Promise<{ endpoint: { socketPath: string; close: () => Promise<void> }; trust: TrustFiles }> {
    const proxy = await this.proxyServer();
    const trust = await this.trustFiles(proxy.dir, proxy.reachFrom);
    const endpoint = await proxy.server.endpoint(origin);
    await exposeSocket(this.host, endpoint.socketPath, proxy.reachFrom);
    return { endpoint, trust };
  }

  async close(): Promise<void> {
    if (!this.proxy) return;
    const proxy = await this.proxy.catch(() => null);
    await proxy?.server.close().catch(() => undefined);
  }

  private proxyServer(): Promise<{ server: SandboxNetProxy; reachFrom: string; dir: string }> {
    this.proxy ??= (async () => {
      let dir = path.join(this.o.stateDir, 'net');
      let reachFrom = this.o.stateRoot;
      // A Unix socket path has at most 107 bytes: a deep data directory gets a private temp one.
      if (dir.length > 90) reachFrom = dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-net-'));
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const scope = this.o.scope;
      const server = new SandboxNetProxy({
        dir,
        policy: this.o.egress,
        ...(this.o.upstreamProxy ? { upstream: this.o.upstreamProxy } : {}),
        ownAddresses: this.o.ownAddresses,
        onEvidence: this.o.onEgress,
        ...(this.o.clock ? { clock: this.o.clock } : {}),
        ...(scope ? { precheck: (t, origin) => scope.precheck(t, origin), decide: (t, origin, gone) => scope.decide(t, origin, gone) } : {}),
        // TLS is terminated only once the processes were given the authority's certificate.
        ...(this.o.secrets ? { secrets: this.o.secrets, authority: () => (this.intercepting ? this.sessionAuthority() : undefined) } : {}),
        ...(this.o.upstreamCa ? { upstreamCa: this.o.upstreamCa } : {}),
      });
      return { server, reachFrom, dir };
    })();
    return this.proxy;
  }

  private sessionAuthority(): SessionAuthority {
    this.authority ??= new SessionAuthority(this.o.sessionId, this.o.clock);
    return this.authority;
  }

  /** The CA bundle and fetch preload a networked process trusts and loads (made once). */
  private trustFiles(dir: string, reachFrom: string): Promise<TrustFiles> {
    this.trust ??= (async () => {
      const intercepts = (this.o.secrets?.().length ?? 0) > 0;
      const files = await trustFiles(dir, intercepts ? this.sessionAuthority().certPem : null, this.o.undiciDir);
      this.intercepting = intercepts;
      // The sandbox's user must reach the server's undici to mount it: where it cannot (an
      // install under a private home), Node's fetch goes without the preload rather than every
      // networked process failing to start.
      if (files.undiciDir && (await this.host.blockedAt(files.undiciDir))) {
        delete files.undiciDir;
        delete files.preload;
      }
      for (const f of [files.bundle, files.ca, files.preload]) if (f) await exposeSocket(this.host, f, reachFrom);
      return files;
    })().catch((err) => {
      this.trust = undefined;
      throw err;
    });
    return this.trust;
  }
}
