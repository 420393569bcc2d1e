// A session's MCP servers: their connections, started together, reported together, closed
// together. Stdio servers run in the session's process sandbox with only the environment their
// configuration names (plus the sandbox's minimal base), the workspace as their configuration
// says, their read-only paths, and network only when asked for; each starts in a home of its own,
// and nothing in the workspace is its code unless it says workspace_code (isolation.ts). HTTP
// servers go through the egress guard.
import path from 'node:path';
import type { McpServerConfig, McpServerPublic, McpServerState } from '../contract/mcp.js';
import type { Fetcher } from '../egress/types.js';
import type { Redactor } from '../redact.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import { McpConnection, McpUnavailable, type ConnectionDeps, type OpenedTransport } from './connection.js';
import type { McpEvidence } from './evidence.js';
import { openHttpTransport } from './http.js';
import { stdioLaunch } from './isolation.js';
import type { McpSchemas } from './schema-check.js';
import { SandboxStdioTransport } from './stdio.js';

export interface HubServer {
  name: string;
  config: McpServerConfig;
  source: 'session' | 'operator';
}

export interface HubEvents {
  started(server: string, e: { restarts: number; tools: string[]; durationMs: number }): void;
  exited(server: string, e: { code: number | null; signal: string | null; reason: string; next: 'restart' | 'none'; restartInMs?: number }): void;
  toolsChanged(server: string, change: { added: string[]; removed: string[]; changed: string[] }): void;
  evidence(server: string, e: McpEvidence): void;
}

export interface HubDeps {
  sandbox: SessionSandbox;
  compiler: McpSchemas;
  now(): Date;
  /** Outbound HTTP through the egress guard, for one HTTP server (its requests are evidence). */
  fetcher(server: string): Fetcher;
  events: HubEvents;
  /**
   * The secrets of the server and the session (tokens, model keys, hook secrets, every MCP
   * server's env and header values): never shown, in any encoding, in what a server's errors say.
   */
  redactor: Redactor;
  restartDelaysMs?: readonly number[];
}

export interface StartFailure {
  server: string;
  source: 'session' | 'operator';
  message: string;
}

export function isStdio(c: McpServerConfig): c is Extract<McpServerConfig, { command: string }> {
  return 'command' in c;
}

/** A server's configuration as the session resource shows it: names of variables and headers, no values. */
export function publicConfig(c: McpServerConfig, source: 'session' | 'operator'): McpServerPublic {
  if (isStdio(c)) {
    return {
      transport: 'stdio',
      source,
      command: c.command,
      args: c.args ?? [],
      env_keys: Object.keys(c.env ?? {}).sort(),
      read_only_paths: c.read_only_paths ?? [],
      network: c.network ?? false,
      workspace: c.workspace ?? 'read-write',
      workspace_code: c.workspace_code ?? false,
      trust_read_only_hint: c.trust_read_only_hint ?? false,
    };
  }
  return { transport: 'http', source, url: c.url, header_names: Object.keys(c.headers ?? {}).sort(), trust_read_only_hint: c.trust_read_only_hint ?? false };
}

/** Values in a server's configuration that are its secrets (env values, header values). */
export function secretsOf(c: McpServerConfig): string[] {
  return isStdio(c) ? Object.values(c.env ?? {}) : Object.values(c.headers ?? {});
}

export class McpHub {
  private readonly connections = new Map<string, { conn: McpConnection; server: HubServer }>();
  /** Per server: the session's redactor with the server's own secrets (the same set, unless it was given less). */
  private readonly redactors = new Map<string, Redactor>();
  private closed = false;

  constructor(
    servers: readonly HubServer[],
    private readonly d: HubDeps,
  ) {
    for (const server of servers) this.connections.set(server.name, { conn: new McpConnection(this.connectionDeps(server)), server });
  }

  private redact(text: string, server: HubServer): string {
    let r = this.redactors.get(server.name);
    if (!r) this.redactors.set(server.name, (r = this.d.redactor.with(secretsOf(server.config))));
    return r.redact(text);
  }

  private connectionDeps(server: HubServer): ConnectionDeps {
    const { events } = this.d;
    return {
      server: server.name,
      config: server.config,
      open: () => this.open(server),
      compiler: this.d.compiler,
      now: this.d.now,
      evidence: (e) => events.evidence(server.name, e),
      started: (e) => events.started(server.name, e),
      exited: (e) => events.exited(server.name, e),
      toolsChanged: (change) => events.toolsChanged(server.name, change),
      redact: (t) => this.redact(t, server),
      ...(this.d.restartDelaysMs ? { restartDelaysMs: this.d.restartDelaysMs } : {}),
    };
  }

  private open(server: HubServer): OpenedTransport {
    const c = server.config;
    const timeoutMs = (c.request_timeout_s ?? 120) * 1000;
    if (!isStdio(c)) return openHttpTransport(c.url, c.headers ?? {}, this.d.fetcher(server.name), timeoutMs);
    const transport = new SandboxStdioTransport({
      spawn: () =>
        this.d.sandbox.spawn({
          ...stdioLaunch(server.name, c, this.d.sandbox.workspace),
          stdin: true,
          ...(c.read_only_paths?.length ? { readOnlyPaths: c.read_only_paths.map((p) => path.resolve(p)) } : {}),
          network: c.network ?? false,
          origin: { toolUseId: null, turnId: null, kind: 'mcp' },
          longLived: true,
        }),
    });
    return {
      transport,
      diagnose: () => {
        const exit = transport.exit;
        const reason =
          transport.protocolError ??
          (exit?.error ? `it could not be started: ${exit.error}` : exit ? `it exited${exit.code !== null ? ` with code ${exit.code}` : ''}${exit.signal ? ` (signal ${exit.signal})` : ''}${exit.limit ? `: ${exit.limit}` : ''}` : null);
        return { reason, code: exit?.code ?? null, signal: exit?.signal ?? null, stderr: transport.stderrTail() };
      },
    };
  }

  names(): string[] {
    return [...this.connections.keys()];
  }

  get(name: string): McpConnection | undefined {
    return this.connections.get(name)?.conn;
  }

  server(name: string): HubServer | undefined {
    return this.connections.get(name)?.server;
  }

  /** Starts every server at once; the ones that could not be started are returned (and stay `failed`). */
  async startAll(): Promise<StartFailure[]> {
    const failures: StartFailure[] = [];
    await Promise.all(
      [...this.connections.values()].map(async ({ conn, server }) => {
        try {
          await conn.start();
        } catch (err) {
          if (conn.status !== 'closed') conn.status = 'failed';
          failures.push({ server: server.name, source: server.source, message: err instanceof McpUnavailable ? err.message : String(err) });
        }
      }),
    );
    return failures.sort((a, b) => a.server.localeCompare(b.server));
  }

  state(): McpServerState[] {
    return [...this.connections.values()].map(({ conn, server }) => ({
      name: server.name,
      status: conn.status,
      config: publicConfig(server.config, server.source),
      server_info: conn.serverInfo,
      protocol_version: conn.protocolVersion,
      tools: conn.tools.map((t) => ({
        name: t.fullName,
        tool: t.name,
        description: t.description,
        read_only: (server.config.trust_read_only_hint ?? false) && t.readOnlyHint,
      })),
      resources: conn.resources.map((r) => ({ uri: r.uri, name: r.name, ...(r.mimeType ? { mime_type: r.mimeType } : {}) })),
      problems: [...conn.problems],
      restarts: conn.restarts,
      last_exit: conn.lastExit,
      stderr_tail: conn.stderrTail(),
      started_at: conn.startedAt?.toISOString() ?? null,
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.connections.values()].map(({ conn }) => conn.close()));
  }
}
