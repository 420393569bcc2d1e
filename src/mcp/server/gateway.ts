// Norma as an MCP server (API.md "Norma as an MCP server"): /mcp speaks Streamable HTTP through
// the MCP SDK's server transport, one transport and SDK server per MCP session, and each MCP
// session is a Norma session — made at `initialize` from the key's tenant defaults, or attached
// with `?session=`. Its id is `<session id>.<random>`; only its SHA-256 is stored, in the
// `mcp.client.connected` event, so after a restart or on another replica the MCP session is taken
// up again from that record (a synthetic initialize replays what the client declared). Every
// request is authenticated as any /v1 request is, and its key's tenant must be the session's.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { Scope } from '../../app/scope.js';
import type { McpClientRecord } from '../../app/mcp-clients.js';
import { ID_PATTERN } from '../../contract/common.js';
import { DomainError } from '../../errors.js';
import type { McpEndpointSettings } from '../../config-mcp-server.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { loadMcpServerSdk, type McpServerSdk } from './sdk.js';
import { ToolCalls, type CallLink } from './calls.js';
import { serveSession } from './handlers.js';
import { SETTINGS_META_KEY, sessionSettingsOf } from './session-settings.js';
import { settleAnswer, type PlainAnswer } from './json-answer.js';

interface Link extends CallLink {
  readonly id: string;
  readonly hash: string;
  readonly tenant: string | null;
  readonly made: boolean;
  readonly record: McpClientRecord;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** Requests being answered, streams open and calls running. */
  busy: number;
  lettingGo: boolean;
  /** Ids of the client's requests not answered yet: a second request with one of them is refused. */
  readonly unanswered: Set<string | number>;
  lastUsed: number;
  /** Stops watching the session's events (tools.changed, session.closed). */
  unwatch: () => void;
  /** The scope of the request answered last (a DELETE's, when the transport reports the end). */
  scope: Scope;
}

type InitializeBody = { params: { protocolVersion: string; capabilities?: { elicitation?: unknown }; clientInfo?: { name?: unknown; version?: unknown }; _meta?: Record<string, unknown> } };

const SESSION_ID = new RegExp(ID_PATTERN);
/**
 * How long a form may stay open: as long as its request waits. The SDK withdraws a request of its
 * own after 60 s unless told otherwise; the request's own timeout (or an answer elsewhere) ends it.
 */
const FORM_TIMEOUT_MS = 2 ** 31 - 1;
/** Headers the transport reads; nothing else of the request is handed on. */
const PASSED_HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];

export const hashOf = (mcpSessionId: string) => createHash('sha256').update(mcpSessionId).digest('hex');

export class McpGateway {
  private readonly links = new Map<string, Link>();
  /** MCP sessions being taken up again from their records, by id. */
  private readonly restoring = new Map<string, Promise<Link | null>>();
  /** MCP sessions being opened or taken up again: they count against the cap before they are held. */
  private reserved = 0;
  private readonly calls: ToolCalls;
  private readonly sweep: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly settings: McpEndpointSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.calls = new ToolCalls(ctx, log);
    this.sweep = setInterval(() => this.letGoIdle(Date.now() - settings.idleMs), Math.min(settings.idleMs, 60_000)).unref();
  }

  /** One request to /mcp: initialize opens an MCP session; any other request names one. */
  async handle(req: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<Response | PlainAnswer> {
    if (this.closed) throw new DomainError('unavailable', 'the server is shutting down');
    const sdk = await loadMcpServerSdk();
    if (Array.isArray(req.body)) return rpcError(400, -32600, 'Invalid Request: a JSON-RPC batch is not accepted (MCP 2025-06-18 removed batching); send one message per request');
    const header = req.headers['mcp-session-id'];
    let link: Link | null;
    if (header === undefined) {
      if (req.method !== 'POST') return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      if (!sdk.types.isInitializeRequest(req.body)) return rpcError(400, -32600, 'Bad Request: a request without Mcp-Session-Id must be a valid initialize request');
      // What the transport would refuse is refused before a session is made for it.
      const accept = req.headers.accept ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
        return rpcError(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
      }
      const opened = await this.open(sdk, req, scope);
      let answer: Response | PlainAnswer;
      try {
        answer = await this.forward(opened, req, reply, scope);
      } catch (err) {
        await this.undo(opened);
        throw err;
      }
      // Refused all the same: nothing is left of it (the client never learnt its id).
      if (answer.status !== 200) await this.undo(opened);
      return answer;
    }
    link = typeof header === 'string' ? await this.find(sdk, header, scope) : null;
    if (!link) return rpcError(404, -32001, 'Session not found: initialize a new MCP session');
    return this.forward(link, req, reply, scope);
  }

  /** Lets go of every MCP session (shutdown): their streams end; each is taken up again from its record. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    await Promise.all([...this.links.values()].map((l) => this.letGo(l)));
  }

  private async open(sdk: McpServerSdk, req: FastifyRequest, scope: Scope): Promise<Link> {
    const body = req.body as InitializeBody;
    const attach = (req.query as { session?: string }).session;
    if (attach !== undefined && body.params._meta?.[SETTINGS_META_KEY] !== undefined) {
      throw new DomainError('invalid', `params._meta["${SETTINGS_META_KEY}"]: settings are for a session made at initialize; an attached session (?session=) keeps its own`);
    }
    if (attach !== undefined) {
      if (!SESSION_ID.test(attach)) throw new DomainError('invalid', 'session: not a session id', ['session: not a session id'], 'query');
      const session = this.ctx.app.sessions.get(scope, attach); // 404 for an unknown session or another tenant's
      if (session.status !== 'active') throw new DomainError('conflict', `session ${attach} is closed`);
    }
    const unreserve = this.reserve();
    try {
      return await this.openReserved(sdk, req, scope, body, attach);
    } finally {
      unreserve();
    }
  }

  private async openReserved(sdk: McpServerSdk, req: FastifyRequest, scope: Scope, body: InitializeBody, attach: string | undefined): Promise<Link> {
    let sessionId: string;
    if (attach !== undefined) sessionId = attach;
    else sessionId = (await this.ctx.app.sessions.create(scope, sessionSettingsOf(body.params))).id;
    const id = `${sessionId}.${randomBytes(18).toString('base64url')}`;
    const requested = body.params.protocolVersion;
    const record: McpClientRecord = {
      mcp_session: hashOf(id),
      client: { name: String(body.params.clientInfo?.name ?? '').slice(0, 200), version: String(body.params.clientInfo?.version ?? '').slice(0, 200) },
      protocol_version: (sdk.types.SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : sdk.types.LATEST_PROTOCOL_VERSION).slice(0, 40),
      elicitation: elicitationDeclared(body.params.capabilities?.elicitation),
      attached: attach !== undefined,
      key: scope.key,
    };
    try {
      await this.ctx.owner.call(scope, 'mcpClients.connected', sessionId, record);
    } catch (err) {
      // Nothing is left of a session made for a connection that could not be recorded.
      if (attach === undefined) await this.ctx.app.sessions.close(scope, sessionId, 'its MCP session could not be opened').catch(() => {});
      throw err;
    }
    const link = await this.connect(sdk, id, sessionId, scope, record);
    this.links.set(id, link);
    return link;
  }

  /** The MCP session of that id, here or taken up again from its record; null when there is none the caller may use. */
  private async find(sdk: McpServerSdk, id: string, scope: Scope): Promise<Link | null> {
    const known = this.links.get(id);
    if (known) return known.tenant === scope.tenant ? known : null;
    // Requests that arrive together for an MCP session not held here take it up once.
    let pending = this.restoring.get(id);
    if (!pending) {
      pending = this.restore(sdk, id, scope).finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    const link = await pending;
    return link && link.tenant === scope.tenant ? link : null;
  }

  private async restore(sdk: McpServerSdk, id: string, scope: Scope): Promise<Link | null> {
    const dot = id.lastIndexOf('.');
    const sessionId = id.slice(0, dot);
    if (dot < 1 || !SESSION_ID.test(sessionId) || id.length > 200) return null;
    let record: McpClientRecord | null;
    try {
      record = this.ctx.app.mcpClients.find(scope, sessionId, hashOf(id));
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not_found') return null;
      throw err;
    }
    if (!record || this.ctx.app.sessions.get(scope, sessionId).status !== 'active') return null;
    const unreserve = this.reserve();
    try {
      return await this.restoreReserved(sdk, id, sessionId, scope, record);
    } finally {
      unreserve();
    }
  }

  private async restoreReserved(sdk: McpServerSdk, id: string, sessionId: string, scope: Scope, record: McpClientRecord): Promise<Link | null> {
    const link = await this.connect(sdk, id, sessionId, scope, record);
    try {
      // What the client declared when it connected, replayed to the new SDK server.
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const capabilities = record.elicitation ? { elicitation: { form: {} } } : {};
      const init = await link.transport.handleRequest(new Request('http://mcp.invalid/mcp', { method: 'POST', headers }), {
        parsedBody: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: record.protocol_version, capabilities, clientInfo: record.client } },
      });
      await init.text();
      const ready = await link.transport.handleRequest(
        new Request('http://mcp.invalid/mcp', { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': record.protocol_version } }),
        { parsedBody: { jsonrpc: '2.0', method: 'notifications/initialized' } },
      );
      await ready.text();
    } catch (err) {
      link.unwatch();
      await link.server.close().catch(() => {});
      throw err;
    }
    this.links.set(id, link);
    this.log.info({ session_id: sessionId }, 'MCP session taken up again from its record');
    return link;
  }

  private async connect(sdk: McpServerSdk, id: string, sessionId: string, scope: Scope, record: McpClientRecord): Promise<Link> {
    const transport = new sdk.http.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => this.ended(link),
    });
    const server = new sdk.server.Server(
      { name: 'norma', version: '1.0.0' },
      {
        capabilities: { tools: { listChanged: true }, resources: {} },
        instructions: `Norma session ${sessionId}: every tool call runs through its rules, asks, hooks, sandbox and output cap, and is recorded.`,
      },
    );
    const link: Link = {
      id,
      hash: hashOf(id),
      sessionId,
      tenant: scope.tenant,
      made: !record.attached,
      record,
      server,
      transport,
      elicitation: record.elicitation,
      elicit: (params, options) => server.elicitInput(params, { ...options, timeout: FORM_TIMEOUT_MS }),
      toolsChanged: () => {},
      hold: () => {
        link.busy++;
        let held = true;
        return () => {
          if (!held) return;
          held = false;
          link.busy--;
          link.lastUsed = Date.now();
        };
      },
      busy: 0,
      lettingGo: false,
      unanswered: new Set(),
      lastUsed: Date.now(),
      unwatch: () => {},
      scope,
    };
    serveSession(sdk, server, link, this.ctx, this.calls);
    // A request is answered once: its id is free again when its answer (or error) goes out.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as { id?: unknown; result?: unknown; error?: unknown; method?: unknown };
      if (m.method === undefined && (m.result !== undefined || m.error !== undefined) && (typeof m.id === 'string' || typeof m.id === 'number')) link.unanswered.delete(m.id);
      return send(message, options);
    };
    // The SDK numbers a server's requests from 0, and its clients ignore notifications/cancelled
    // for request id 0 (a falsy check): the first elicitation could never be withdrawn. From 1.
    const numbered = server as unknown as { _requestMessageId?: unknown };
    if (numbered._requestMessageId === 0) numbered._requestMessageId = 1;
    await server.connect(transport);
    const watch = this.ctx.events.subscribe(sessionId, this.ctx.events.lastSeq(sessionId), (e) => {
      if (e.type === 'tools.changed' || e.type === 'session.updated') {
        link.toolsChanged();
        void server.sendToolListChanged().catch(() => {});
      }
      // The session ended under the MCP session, or the MCP session was ended (DELETE) on another
      // replica: it ends here too (its next request is a 404).
      if (e.type === 'session.closed' || (e.type === 'mcp.client.closed' && e.mcp_session === link.hash)) void this.letGo(link);
    });
    link.unwatch = () => watch.close();
    return link;
  }

  private async forward(link: Link, req: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<Response | PlainAnswer> {
    const headers = new Headers();
    for (const name of PASSED_HEADERS) {
      const v = req.headers[name];
      if (typeof v === 'string') headers.set(name, v);
    }
    // A request id still being answered is not taken again (the transport would send the first
    // request's answer, progress and forms to the second).
    const id = req.method === 'POST' ? requestIdOf(req.body) : undefined;
    if (id !== undefined) {
      if (link.unanswered.has(id)) return rpcError(400, -32600, `Invalid Request: request id ${JSON.stringify(id).slice(0, 100)} is still being answered; use a new id`);
      link.unanswered.add(id);
    }
    link.busy++;
    link.lastUsed = Date.now();
    link.scope = scope;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      link.busy--;
      link.lastUsed = Date.now();
    };
    reply.raw.once('close', release);
    try {
      const request = new Request(`http://mcp.invalid/mcp`, { method: req.method, headers });
      // The caller's scope goes with each message: a call runs as the key of the request that carries it.
      const response = await link.transport.handleRequest(request, {
        ...(req.method === 'POST' ? { parsedBody: req.body } : {}),
        authInfo: { token: '', clientId: scope.key ?? 'loopback', scopes: [...scope.access], extra: { scope } },
      });
      // Refused by the transport itself (its answer did not go out through send): the id is free.
      if (id !== undefined && response.status !== 200) link.unanswered.delete(id);
      // A request answered at once is answered as JSON (src/mcp/server/json-answer.ts).
      return id !== undefined ? await settleAnswer(response, id) : response;
    } catch (err) {
      if (id !== undefined) link.unanswered.delete(id);
      release();
      throw err;
    }
  }

  /** DELETE: the MCP session ends; a session made for it is closed with it, as configured. */
  private ended(link: Link): void {
    const scope = link.scope;
    const close = link.made && this.settings.sessionEnd === 'close';
    void (async () => {
      try {
        await this.ctx.owner.call(scope, 'mcpClients.closed', link.sessionId, link.hash, close);
        if (close) await this.ctx.owner.call(scope, 'sessions.close', link.sessionId);
      } catch (err) {
        this.log.warn({ err, session_id: link.sessionId }, 'ending an MCP session\'s Norma session failed');
      }
      await this.letGo(link);
    })();
  }

  private async letGo(link: Link): Promise<void> {
    if (this.links.get(link.id) !== link) return;
    this.links.delete(link.id);
    link.unwatch();
    // Closing aborts the SDK's handlers: a call running then is not cancelled for it (calls.ts).
    link.lettingGo = true;
    await link.server.close().catch(() => {});
  }

  /** An MCP session opened for an initialize the transport refused: it is let go, and a session made for it closed. */
  private async undo(link: Link): Promise<void> {
    try {
      await this.ctx.owner.call(link.scope, 'mcpClients.closed', link.sessionId, link.hash, link.made);
      if (link.made) await this.ctx.owner.call(link.scope, 'sessions.close', link.sessionId);
    } catch (err) {
      this.log.warn({ err, session_id: link.sessionId }, 'undoing a refused MCP initialize failed');
    }
    await this.letGo(link);
  }

  private letGoIdle(before: number): void {
    for (const l of this.links.values()) if (l.busy === 0 && l.lastUsed < before) void this.letGo(l);
  }

  /**
   * Room for one more MCP session in memory, held until the returned release (the MCP session is
   * then held, or its opening failed): the longest idle is let go; with none idle, a 503. Opens and
   * restores under way count, so concurrent ones cannot overshoot the cap.
   */
  private reserve(): () => void {
    if (this.links.size + this.reserved >= this.settings.maxSessions) {
      let idlest: Link | undefined;
      for (const l of this.links.values()) if (l.busy === 0 && (!idlest || l.lastUsed < idlest.lastUsed)) idlest = l;
      if (!idlest) throw new DomainError('unavailable', `this server holds ${this.links.size + this.reserved} MCP sessions with work in flight, as many as NORMA_MCP_MAX_SESSIONS allows; try again later`);
      void this.letGo(idlest);
    }
    this.reserved++;
    let held = true;
    return () => {
      if (held) this.reserved--;
      held = false;
    };
  }
}

/** Whether a client's `capabilities.elicitation` declares form elicitation (`{}` is form, as the SDK reads it). */
function elicitationDeclared(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.keys(value).length === 0 || 'form' in value;
}

/** The id of a POSTed JSON-RPC request (not of a notification or response). */
function requestIdOf(body: unknown): string | number | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const m = body as { id?: unknown; method?: unknown };
  return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : undefined;
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } });
}
