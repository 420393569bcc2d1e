// One MCP server of a session: started (in the sandbox, or over Streamable HTTP through the
// egress guard), initialized and asked for its tools and resources (listing.ts); restarted with backoff when
// it exits (a bounded number of times); closed with the session. Requests have timeouts, and a
// cancelled call sends `notifications/cancelled` (the SDK's Protocol does, on abort).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { loadMcpSdk, mcpSdk } from './sdk.js';
import type { McpServerConfig } from '../contract/mcp.js';
import { EvidenceTransport, withOrigin, type McpEvidence, type McpOrigin } from './evidence.js';
import { listResources, listTools, McpUnavailable, type McpResourceInfo, type McpToolInfo } from './listing.js';

export { McpUnavailable, type McpResourceInfo, type McpToolInfo } from './listing.js';
import type { McpSchemas } from './schema-check.js';

export const DEFAULT_STARTUP_TIMEOUT_S = 30;
export const DEFAULT_REQUEST_TIMEOUT_S = 120;
/** Pauses before each restart after an exit; when they are used up the server is `failed`. */
export const RESTART_DELAYS_MS = [500, 1000, 2000, 4000, 8000];
/** A server that ran this long before it exited starts its restart count afresh. */
const HEALTHY_MS = 60_000;

export type ConnectionStatus = 'starting' | 'running' | 'restarting' | 'failed' | 'closed';

/** The transport for one start, and what it can tell about why it ended. */
export interface OpenedTransport {
  transport: Transport;
  /** Why it ended, when known (the process's exit, a protocol error), and the stderr tail. */
  diagnose(): { reason: string | null; code: number | null; signal: string | null; stderr: string };
}

export interface ConnectionDeps {
  server: string;
  config: McpServerConfig;
  open(): OpenedTransport;
  compiler: McpSchemas;
  now(): Date;
  evidence(e: McpEvidence): void;
  started(e: { restarts: number; tools: string[]; durationMs: number }): void;
  exited(e: { code: number | null; signal: string | null; reason: string; next: 'restart' | 'none'; restartInMs?: number }): void;
  /** The server's tools were listed again: the session replaces them; the lists say what differs (empty: nothing). */
  toolsChanged(change: { added: string[]; removed: string[]; changed: string[] }): void;
  /** Hides the session's and the server's secrets in text that leaves (stderr, errors). */
  redact(text: string): string;
  restartDelaysMs?: readonly number[];
}

/** A progress notification of a request. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export class McpConnection {
  status: ConnectionStatus = 'starting';
  tools: McpToolInfo[] = [];
  resources: McpResourceInfo[] = [];
  /** What the last tool listing left out, and other trouble (resources that could not be listed). */
  private toolProblems: string[] = [];
  private otherProblems: string[] = [];
  restarts = 0;
  lastExit: { code: number | null; signal: string | null; at: string; reason: string } | null = null;
  startedAt: Date | null = null;
  serverInfo: { name: string; version: string } | null = null;
  protocolVersion: string | null = null;
  private client: Client | null = null;
  private opened: OpenedTransport | null = null;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stderrSeen = '';
  /** Settles when the current start ends (running or not): calls during a restart are told at once. */
  private starting: Promise<void> | null = null;

  /** A tool-list refresh in flight, and whether another `list_changed` came meanwhile (refreshes are coalesced). */
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;

  constructor(private readonly d: ConnectionDeps) {}

  get problems(): string[] {
    return [...this.toolProblems, ...this.otherProblems];
  }

  get name(): string {
    return this.d.server;
  }

  private get startupMs(): number {
    return (this.d.config.startup_timeout_s ?? DEFAULT_STARTUP_TIMEOUT_S) * 1000;
  }

  private get requestMs(): number {
    return (this.d.config.request_timeout_s ?? DEFAULT_REQUEST_TIMEOUT_S) * 1000;
  }

  stderrTail(): string {
    return this.d.redact(this.opened?.diagnose().stderr ?? this.stderrSeen);
  }

  /** Starts the server; rejects with McpUnavailable (the server is stopped) when it cannot be used. */
  start(): Promise<void> {
    this.starting = this.startOnce();
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    const began = Date.now();
    this.status = 'starting';
    const { client: { Client }, types: { ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } } = await loadMcpSdk();
    const opened = this.d.open();
    this.opened = opened;
    const transport = new EvidenceTransport(opened.transport, (e) => this.d.evidence(e));
    const client = new Client({ name: 'norma-server', version: '1' }, { capabilities: {} });
    // Set before anything is sent: a close during the start fails the start (below); one after it
    // is an exit of a running server.
    let closedEarly = false;
    client.onclose = () => {
      if (this.client === client) this.onClosed(client);
      else closedEarly = true;
    };
    let connected = false;
    const deadline = AbortSignal.timeout(this.startupMs);
    try {
      await client.connect(transport, { timeout: this.startupMs, signal: deadline });
      connected = true;
      const listed = await listTools(client, { server: this.d.server, compiler: this.d.compiler, timeoutMs: this.startupMs, signal: deadline });
      const tools = listed.tools;
      const caps = client.getServerCapabilities();
      this.otherProblems = [];
      const resources = caps?.resources ? await listResources(client, this.requestMs, deadline).catch((err: unknown) => {
        this.otherProblems.push(`resources/list failed: ${this.d.redact(messageOf(err))}`);
        return [] as McpResourceInfo[];
      }) : [];
      if ((this.status as ConnectionStatus) === 'closed') throw new McpUnavailable('the session closed while the server started');
      if (closedEarly) throw new McpUnavailable(opened.diagnose().reason ?? 'the connection closed while it started');
      const before = this.tools;
      this.client = client;
      this.tools = tools;
      this.toolProblems = listed.problems;
      this.resources = resources;
      const info = client.getServerVersion();
      this.serverInfo = info ? { name: info.name, version: info.version } : null;
      this.protocolVersion = transport.protocolVersion ?? null;
      this.status = 'running';
      this.startedAt = this.d.now();
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools(client));
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void this.refreshResources(client));
      this.d.started({ restarts: this.restarts, tools: tools.map((t) => t.fullName), durationMs: Date.now() - began });
      if (this.restarts > 0) this.announceChange(before, tools);
    } catch (err) {
      // Explained before the process is stopped: stopping it would read as its own exit.
      const why = this.explain(err, connected ? 'listing its tools' : 'starting and initializing');
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      await opened.transport.close().catch(() => undefined);
      this.stderrSeen = opened.diagnose().stderr;
      // Said in GET …/mcp too: a server that did not start names why.
      this.otherProblems = [why];
      throw new McpUnavailable(why);
    }
  }

  /** Why a start failed, in words: the protocol error or exit first, then the error, then stderr. */
  private explain(err: unknown, during: string): string {
    const diag = this.opened?.diagnose();
    const { types: { McpError, ErrorCode }, http: { StreamableHTTPError } } = mcpSdk();
    let why: string;
    if (err instanceof McpUnavailable) why = err.message;
    else if (diag?.reason) why = diag.reason;
    else if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) why = `it did not answer within ${this.startupMs / 1000} s`;
    else if (err instanceof Error && err.name === 'TimeoutError') why = `it did not answer within ${this.startupMs / 1000} s`;
    else if (err instanceof StreamableHTTPError && err.code !== undefined) why = `it answered HTTP ${err.code}${err.message.endsWith(': ') ? '' : ` (${err.message})`}`;
    else why = messageOf(err);
    // The stderr is redacted before it is cut: a cut would leave the part of a secret a run needs.
    const stderr = diag?.stderr ? this.d.redact(diag.stderr).trim() : '';
    const tail = stderr ? `; its stderr ends: ${JSON.stringify(stderr.slice(-500))}` : '';
    return this.d.redact(`MCP server "${this.d.server}" failed while ${during}: ${why}${tail}`);
  }

  /** `tools/list_changed`: the list is read again — once more at most for any number that arrive meanwhile. */
  private refreshTools(client: Client): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refreshOnce(client);
      } while (this.refreshAgain);
    })().finally(() => (this.refreshing = null));
  }

  private async refreshOnce(client: Client): Promise<void> {
    if (client !== this.client || this.status !== 'running') return;
    const before = this.tools;
    let listed;
    try {
      listed = await listTools(client, { server: this.d.server, compiler: this.d.compiler, timeoutMs: this.requestMs, signal: AbortSignal.timeout(this.requestMs) });
    } catch (err) {
      this.toolProblems = [...this.toolProblems.filter((p) => !p.startsWith('after tools/list_changed')), `after tools/list_changed, the new list could not be read (the old one is kept): ${this.d.redact(messageOf(err))}`];
      return;
    }
    if (client !== this.client) return;
    this.tools = listed.tools;
    this.toolProblems = listed.problems;
    this.announceChange(before, this.tools);
  }

  private async refreshResources(client: Client): Promise<void> {
    if (client !== this.client || this.status !== 'running') return;
    this.resources = await listResources(client, this.requestMs).catch(() => this.resources);
  }

  private announceChange(before: readonly McpToolInfo[], after: readonly McpToolInfo[]): void {
    const shape = (t: McpToolInfo) => JSON.stringify([t.description, t.inputSchema, t.readOnlyHint]);
    const was = new Map(before.map((t) => [t.fullName, shape(t)]));
    const now = new Map(after.map((t) => [t.fullName, shape(t)]));
    this.d.toolsChanged({
      added: after.filter((t) => !was.has(t.fullName)).map((t) => t.fullName),
      removed: before.filter((t) => !now.has(t.fullName)).map((t) => t.fullName),
      changed: after.filter((t) => was.has(t.fullName) && was.get(t.fullName) !== now.get(t.fullName)).map((t) => t.fullName),
    });
  }

  /** The connection ended while running: the server crashed, or spoke garbage. */
  private onClosed(client: Client): void {
    if (client !== this.client || this.status === 'closed') return;
    this.client = null;
    const diag = this.opened?.diagnose();
    this.stderrSeen = diag?.stderr ?? '';
    const reason = this.d.redact(diag?.reason ?? 'the connection closed');
    this.lastExit = { code: diag?.code ?? null, signal: diag?.signal ?? null, at: this.d.now().toISOString(), reason };
    if (this.startedAt && this.d.now().getTime() - this.startedAt.getTime() >= HEALTHY_MS) this.attempt = 0;
    this.scheduleRestart(reason, diag?.code ?? null, diag?.signal ?? null);
  }

  private scheduleRestart(reason: string, code: number | null, signal: string | null): void {
    const delays = this.d.restartDelaysMs ?? RESTART_DELAYS_MS;
    const delay = delays[this.attempt];
    if (delay === undefined) {
      this.status = 'failed';
      this.d.exited({ code, signal, reason: `${reason}; it was restarted ${this.attempt} times in a row and is not started again`, next: 'none' });
      return;
    }
    this.status = 'restarting';
    this.attempt++;
    this.d.exited({ code, signal, reason, next: 'restart', restartInMs: delay });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.status !== 'restarting') return;
      this.restarts++;
      this.start().catch((err: unknown) => {
        if (this.status === 'closed') return;
        const why = err instanceof Error ? err.message : String(err);
        this.lastExit = { code: null, signal: null, at: this.d.now().toISOString(), reason: why };
        this.scheduleRestart(why, null, null);
      });
    }, delay);
    this.timer.unref();
  }

  /** Why calls cannot go to the server now, or null when it is running. */
  private unavailable(): string | null {
    switch (this.status) {
      case 'running':
        return null;
      case 'starting':
      case 'restarting':
        return `MCP server "${this.d.server}" is not running: ${this.lastExit ? `it exited (${this.lastExit.reason}) and is being started again` : 'it is still starting'}; try again shortly`;
      case 'failed':
        return `MCP server "${this.d.server}" is not running: ${this.lastExit?.reason ?? 'it could not be started'}`;
      case 'closed':
        return `MCP server "${this.d.server}" was closed with the session`;
    }
  }

  private async request<T extends z.ZodTypeAny>(
    method: string,
    params: Record<string, unknown>,
    schema: T,
    signal: AbortSignal,
    origin?: McpOrigin,
    onProgress?: (p: McpProgress) => void,
  ): Promise<z.infer<T>> {
    const { McpError, ErrorCode } = mcpSdk().types;
    const down = this.unavailable();
    if (down) throw new McpUnavailable(down);
    const client = this.client!;
    // With progress, each notification restarts the request's timeout, within ten timeouts in all.
    const progress = onProgress ? { onprogress: onProgress, resetTimeoutOnProgress: true, maxTotalTimeout: this.requestMs * 10 } : {};
    try {
      return await withOrigin(origin, () => client.request({ method, params } as never, schema as never, { signal, timeout: this.requestMs, ...progress }) as Promise<z.infer<T>>);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        const total = typeof (err.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout === 'number';
        throw new McpUnavailable(
          total
            ? `MCP server "${this.d.server}" did not finish ${method} within ${(this.requestMs * 10) / 1000} s in all, progress notwithstanding (the request was cancelled)`
            : `MCP server "${this.d.server}" did not answer ${method} within ${this.requestMs / 1000} s (the request was cancelled)`,
        );
      }
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        const diag = this.opened?.diagnose();
        throw new McpUnavailable(this.d.redact(`MCP server "${this.d.server}" went away during ${method}: ${diag?.reason ?? 'the connection closed'}`));
      }
      throw new McpUnavailable(this.d.redact(`MCP server "${this.d.server}" answered ${method} with an error: ${messageOf(err)}`));
    }
  }

  /** The server's resources now (a fresh listing); null when the server offers none. */
  async listResourcesNow(signal: AbortSignal, origin?: McpOrigin): Promise<McpResourceInfo[] | null> {
    const down = this.unavailable();
    if (down) throw new McpUnavailable(down);
    const client = this.client!;
    if (!client.getServerCapabilities()?.resources) return null;
    try {
      this.resources = await withOrigin(origin, () => listResources(client, this.requestMs, signal));
      return this.resources;
    } catch (err) {
      if (signal.aborted) throw err;
      throw new McpUnavailable(this.d.redact(`MCP server "${this.d.server}" could not list its resources: ${messageOf(err)}`));
    }
  }

  /** Calls a tool; `onProgress` gets the server's progress notifications for this call as they come. */
  callTool(name: string, args: unknown, signal: AbortSignal, origin?: McpOrigin, onProgress?: (p: McpProgress) => void): Promise<z.infer<typeof CallToolResultSchema>> {
    return this.request('tools/call', { name, arguments: args }, mcpSdk().types.CallToolResultSchema, signal, origin, onProgress);
  }

  readResource(uri: string, signal: AbortSignal, origin?: McpOrigin): Promise<z.infer<typeof ReadResourceResultSchema>> {
    return this.request('resources/read', { uri }, mcpSdk().types.ReadResourceResultSchema, signal, origin);
  }

  async close(): Promise<void> {
    const was = this.status;
    this.status = 'closed';
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = null;
    if (client) client.onclose = undefined;
    // The process goes first: a start still waiting on it then fails at once.
    await this.opened?.transport.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await this.starting?.catch(() => undefined);
    if (was === 'running') this.d.exited({ code: null, signal: null, reason: 'closed with the session', next: 'none' });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
