// Sessions: creation (with loud misconfiguration errors), rules and mode, turns, the
// permission pause, and close. The one owner of a session's runtime state.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type {
  Decision,
  Output,
  PermissionRequest,
  PermissionResponse,
  PermissionStatus,
  Session,
  SessionCreate,
  SessionPatch,
  SessionRule,
  Turn,
  TurnCreate,
} from '../contract/schemas.js';
import { DomainError, notFound } from '../errors.js';
import { errorResult } from '../pipeline/exec-one.js';
import type { NormaEvent } from '../contract/events.js';
import type { EventLog } from '../events/log.js';
import { compileSessionHooks, type HookEvidenceSink } from '../hooks/config.js';
import type { EgressPolicy, Resolver } from '../sandbox/egress.js';
import { HookRegistry, HookStop, type HookInput, type HookRegistration, type HookRunRecord, type SessionHooks } from '../hooks/registry.js';
import type { Clock, IdFactory } from '../ids.js';
import type { RuleSet } from '../permission/evaluate.js';
import { parseRules, type ParsedRule } from '../permission/rules.js';
import { DEFAULT_OUTPUT_CAP_CHARS } from '../pipeline/output-cap.js';
import { inputDigest, type DecisionNote, type PermissionContext } from '../pipeline/exec-one.js';
import type { InputValidator } from '../pipeline/validate.js';
import { Workspace } from '../sandbox/paths.js';
import type { SandboxHost, SandboxStatus } from '../sandbox/process.js';
import { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { ResourceLimits } from '../sandbox/limits.js';
import type { OutputFiles } from '../store/outputs.js';
import type { DecisionQuery, SessionRecord, Store } from '../store/store.js';
import { implementedTools, selectTools } from '../tools/catalog.js';
import { FileReadState } from '../tools/read-state.js';
import { BackgroundTasks } from '../tools/tasks.js';
import { PtyShells } from '../tools/pty.js';
import { ToolRegistry } from '../tools/registry.js';
import { PermissionBroker } from './permissions.js';
import { TurnRunner, TurnStop, type TurnRunnerDeps } from './turn.js';
import { PromptTurnRunner, type PromptTurnDeps } from './prompt-turn.js';
import { createProvider, publicModel, resolveModel, type ProviderOptions, type ResolvedModel } from '../model/index.js';
import type { Message, ModelProvider } from '../model/provider.js';
import { closeTranscript } from '../model/transcript.js';
import { egressFetcher } from '../web/egress-client.js';
import { FetchCache, searchStatus, type SearchStatus, type WebState } from '../web/state.js';

export interface SessionServiceDeps {
  config: Config;
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdFactory;
  logger: Logger;
  validator: InputValidator;
  /** Operator-configured (trusted) hooks; they run for every session. */
  hooks: HookRegistry;
  outputs: OutputFiles;
  sandbox: SandboxHost;
  /** The sandbox's self-test, run once on first need. */
  sandboxStatus: () => Promise<SandboxStatus>;
  /** DNS resolution for egress checks (tests inject one); default: the system resolver. */
  resolve?: Resolver;
  /** Operator hooks from NORMA_HOOKS_FILE (checked at start-up), run for every session before its own. */
  operatorHooks?: SessionHooks;
  /** Retry and timeout settings for model providers (tests shorten them). */
  modelOptions?: Omit<ProviderOptions, 'egress'>;
  /** The server's own listening sockets (a sandbox's network never reaches them). */
  ownAddresses?: () => { address: string; port: number }[];
}

interface SessionRuntime {
  registry: ToolRegistry;
  workspace: Workspace;
  /** Where the session's processes run (its home, /tmp, cgroup and network proxy). */
  sandbox: SessionSandbox;
  activeTurn: TurnRunner | null;
  readState: FileReadState;
  tasks: BackgroundTasks;
  shells: PtyShells;
  /** Parsed rules and mode, rebuilt whenever the session is saved (read on every evaluation). */
  permission: PermissionContext;
  /** The mode and rule texts `permission` was built from: a change re-evaluates pending asks. */
  permissionKey: string;
  /** The operator's hooks, then the session's own. */
  hooks: HookRegistry;
  /** The model prompt turns talk to (null: the session has none). */
  model: ResolvedModel | null;
  /** WebFetch's cache and caps, the search backend. */
  web: WebState;
  /** Made on the first prompt turn and kept (with their connections) until the session closes. */
  providers?: { main: ModelProvider; subagent: ModelProvider };
}

const MAX_LIST_LIMIT = 200;

/** A page of one kind of audit events, and where the next page starts. */
export interface EventPage {
  items: NormaEvent[];
  next_after: number | null;
}

export class SessionService {
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly closing = new Map<string, Promise<void>>();
  /** Set by shutdown(): no new turn starts. */
  private stopping = false;
  private readonly broker: PermissionBroker;
  private workspaceRootReal: string | undefined;
  /** The operator's search backend, checked once. */
  readonly webSearch: SearchStatus;

  constructor(private readonly deps: SessionServiceDeps) {
    this.broker = new PermissionBroker(deps);
    this.webSearch = searchStatus(deps.config.web.search);
    for (const tool of implementedTools()) deps.validator.prepare(tool);
  }

  // ---- sessions ------------------------------------------------------------------------

  async create(body: SessionCreate): Promise<Session> {
    const { config, clock, newId, store, events } = this.deps;
    const problems: string[] = [];

    const sandbox = await this.deps.sandboxStatus();
    const selection = selectTools(body.tools, { processSandbox: sandbox, webSearch: this.webSearch });
    if (!selection.ok) problems.push(...selection.problems);
    problems.push(...parseRules('allowed_tools', body.allowed_tools ?? []).problems);
    problems.push(...parseRules('disallowed_tools', body.disallowed_tools ?? []).problems);
    problems.push(...parseRules('ask_rules', body.ask_rules ?? []).problems);
    const hookEvents = Object.keys(body.hooks ?? {}).filter((e) => (body.hooks as Record<string, unknown[]>)[e]!.length > 0);
    const sandboxForHooks = { mode: this.deps.sandbox.mode, usable: sandbox.usable, detail: sandbox.detail };
    if (hookEvents.length > 0) {
      if (!config.sessionHooks) problems.push('hooks: per-session hooks are disabled by the operator (NORMA_SESSION_HOOKS=off)');
      else problems.push(...compileSessionHooks(body.hooks, sandboxForHooks, this.egress()).problems);
    }
    const limits = this.limitsFor(body.limits, problems);
    if (body.sandbox_network && this.deps.sandbox.mode === 'bwrap' && !this.deps.sandbox.socatPath) {
      problems.push('sandbox_network: the sandbox\'s network goes through an egress proxy bridged by socat, which is not installed on the server (Debian package socat)');
    }
    const resolved = resolveModel(body.model, null, config.model);
    if (!resolved.ok) problems.push(...resolved.problems);
    else if (!resolved.model && body.tools?.includes('Agent')) {
      problems.push('tools: "Agent" needs a model to run subagents: give `model`, or configure NORMA_MODEL_PROVIDER on the server');
    }

    const id = newId('ses');
    let workspaceDir: string | undefined;
    if (body.workspace !== undefined) {
      const checked = await this.checkWorkspace(body.workspace);
      if (typeof checked === 'string') workspaceDir = checked;
      else problems.push(checked.problem);
    }
    if (problems.length > 0) {
      throw new DomainError('invalid', `the session configuration has ${problems.length} problem(s): ${problems.join('; ')}`, problems);
    }

    // Whatever fails from here (the disk, the store) leaves nothing behind: no runtime, no
    // sandbox state, no workspace directory the server made.
    const made: { dir?: string; processes?: SessionSandbox } = {};
    let built: { session: Session; runtime: SessionRuntime };
    try {
      built = await (async () => {
        const owned = workspaceDir === undefined;
        if (owned) {
          workspaceDir = path.join(await this.workspaceRoot(), id);
          await fs.mkdir(workspaceDir, { mode: 0o700 });
          made.dir = workspaceDir;
        }
        const workspace = await Workspace.open(workspaceDir!);
        const processes = this.sessionSandbox(id, workspace.root, body.sandbox_network ?? false, limits);
        made.processes = processes;
        const sessionHooks =
          hookEvents.length > 0
            ? compileSessionHooks(body.hooks, { ...sandboxForHooks, session: processes }, this.egress(), 'hooks', this.hookEvidence)
            : undefined;
        const registry = new ToolRegistry();
        for (const tool of (selection as { tools: import('../tools/tool.js').CoreTool[] }).tools) registry.register(tool);

        const warnings: string[] = [...(selection as { warnings: string[] }).warnings];
        if (config.sandbox === 'off') {
          warnings.push('the process sandbox is off (NORMA_SANDBOX=off): shell tools and command hooks run UNSANDBOXED');
        }
        // A rule naming a tool the session does not have is legal (MCP tools come and go) but is
        // most often a typo: say so instead of letting it match nothing silently.
        const installed = new Set(registry.names());
        for (const [field, texts] of [['allowed_tools', body.allowed_tools], ['disallowed_tools', body.disallowed_tools], ['ask_rules', body.ask_rules]] as const) {
          for (const rule of parseRules(field, texts ?? []).rules) {
            if (rule.kind === 'name' && rule.tool !== '*' && !rule.tool.startsWith('mcp__') && !installed.has(rule.tool)) {
              warnings.push(`${field}: rule ${JSON.stringify(rule.text)} names no tool of this session`);
            }
          }
        }
        const session: Session = {
          id,
          status: 'active',
          workspace: workspace.root,
          workspace_owned: owned,
          permission_mode: body.permission_mode ?? 'default',
          allowed_tools: body.allowed_tools ?? [],
          disallowed_tools: body.disallowed_tools ?? [],
          ask_rules: body.ask_rules ?? [],
          rules: [],
          tools: registry.names(),
          output_cap_chars: body.output_cap_chars ?? DEFAULT_OUTPUT_CAP_CHARS,
          permission_timeout_s: body.permission_timeout_s ?? null,
          sandbox: config.sandbox,
          hook_events: sessionHooks?.events ?? [],
          model: resolved.ok && resolved.model ? publicModel(resolved.model) : null,
          system_prompt: body.system_prompt ?? null,
          sandbox_network: body.sandbox_network ?? false,
          limits: { enforcement: this.deps.sandbox.mode === 'off' ? 'none' : this.deps.sandbox.limits.enforcement, ...limits },
          active_turn_id: null,
          warnings,
          created_at: clock().toISOString(),
          closed_at: null,
        };
        const runtime = this.newRuntime(session, registry, workspace, processes, this.hooksFor(sessionHooks?.registrations ?? [], sandbox, processes));
        runtime.model = resolved.ok ? resolved.model : null;
        let modelInput: SessionRecord['model'] = null;
        if (body.model) {
          const { api_key: _key, ...rest } = body.model;
          modelInput = rest;
        }
        this.deps.store.transaction(() => {
          this.saveSession({ session, hooks: sessionHooks ? body.hooks! : null, modelApiKey: body.model?.api_key ?? null, model: modelInput });
          events.emit(id, { type: 'session.created', session });
        });
        this.runtimes.set(id, runtime);
        return { session, runtime };
      })();
    } catch (err) {
      this.runtimes.delete(id);
      await made.processes?.close().catch(() => undefined);
      if (made.dir) await fs.rm(made.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    const { session, runtime } = built;
    await this.runLifecycleHooks('SessionStart', session, {}, runtime.hooks);
    return session;
  }

  private newRuntime(session: Session, registry: ToolRegistry, workspace: Workspace, sandbox: SessionSandbox, hooks: HookRegistry): SessionRuntime {
    return {
      hooks,
      registry,
      workspace,
      sandbox,
      activeTurn: null,
      readState: new FileReadState(),
      tasks: this.backgroundTasks(session.id),
      shells: new PtyShells(this.deps.newId),
      permission: this.buildPermissionContext(session),
      permissionKey: permissionKey(session),
      model: null,
      web: {
        cache: new FetchCache(() => this.deps.clock().getTime()),
        fetchMaxBytes: this.deps.config.web.fetchMaxBytes,
        fetchTimeoutMs: this.deps.config.web.fetchTimeoutMs,
        convertTimeoutMs: this.deps.config.web.convertTimeoutMs,
        search: this.webSearch.config,
      },
    };
  }

  /** An http hook's outbound request, as evidence in the session it ran for. */
  private readonly hookEvidence: HookEvidenceSink = (e, input, hook) =>
    this.deps.events.emit(input.session_id, {
      type: 'egress.request',
      ...(input.turn_id ? { turn_id: input.turn_id } : {}),
      ...(input.tool_use_id ? { tool_use_id: input.tool_use_id } : {}),
      ...(input.tool_name ? { tool: input.tool_name } : {}),
      hook,
      ...e,
    });

  /** Every hook run becomes an event (`hook.completed` or `hook.failed`): the hooks' audit trail. */
  private emitHookRun(sessionId: string, r: HookRunRecord, turnId?: string, toolUseId?: string): void {
    const where = { ...(turnId ? { turn_id: turnId } : {}), ...(toolUseId ? { tool_use_id: toolUseId } : {}) };
    const common = { hook: r.hook, kind: r.kind, event: r.event, ...where, duration_ms: r.duration_ms };
    if (r.outcome === 'error' || r.outcome === 'failed') {
      this.deps.events.emit(sessionId, { type: 'hook.failed', ...common, outcome: r.outcome, error: r.error ?? 'failed' });
    } else {
      this.deps.events.emit(sessionId, {
        type: 'hook.completed',
        ...common,
        outcome: r.outcome,
        ...(r.decision ? { decision: r.decision } : {}),
        ...(r.rewrite_digest ? { rewrite_digest: r.rewrite_digest } : {}),
      });
    }
  }

  /** The hook audit: every `hook.completed` / `hook.failed` event of the session, paged by seq. */
  listHookRuns(sessionId: string, afterSeq: number, limit: number): EventPage {
    return this.eventsPage(sessionId, ['hook.completed', 'hook.failed'], afterSeq, limit);
  }

  /** The egress evidence: every `egress.request` event of the session, paged by seq. */
  listEgress(sessionId: string, afterSeq: number, limit: number): EventPage {
    return this.eventsPage(sessionId, ['egress.request'], afterSeq, limit);
  }

  private eventsPage(sessionId: string, types: string[], afterSeq: number, limit: number): EventPage {
    this.record(sessionId);
    const page = this.deps.store.eventsOfTypes(sessionId, types, afterSeq, limit + 1);
    const items = page.slice(0, limit);
    return { items, next_after: page.length > limit ? items[items.length - 1]!.seq : null };
  }

  // ---- export --------------------------------------------------------------------------

  /** The parts of a session export other than its events (those are streamed page by page). */
  exportHead(id: string) {
    const { session } = this.record(id);
    const decisions: Decision[] = [];
    for (let after = 0; ; ) {
      const page = this.deps.store.listDecisions(id, { afterSeq: after, limit: 1000 });
      decisions.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)!.seq;
    }
    return {
      format: 'norma.session-export' as const,
      version: 1 as const,
      exported_at: this.deps.clock().toISOString(),
      session,
      turns: this.deps.store.listTurns(id),
      permissions: this.deps.store.listPermissions(id),
      decisions,
      outputs: this.deps.store.listOutputs(id),
    };
  }

  /** The session's durable events in seq order, a page at a time. */
  *exportEvents(id: string, pageSize = 1000) {
    for (let after = 0; ; ) {
      const page = this.deps.store.eventsAfter(id, after, pageSize);
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      after = page.at(-1)!.seq;
    }
  }

  // ---- retention -----------------------------------------------------------------------

  /**
   * Removes sessions closed longer than NORMA_SESSION_RETENTION_S ago: their records, events,
   * decisions, spill files and task logs, and their workspace when the server made it (and it
   * lies inside the workspace root). Open sessions are never touched.
   */
  async sweepClosedSessions(): Promise<number> {
    const before = new Date(this.deps.clock().getTime() - this.deps.config.sessionRetentionMs).toISOString();
    let removed = 0;
    for (;;) {
      const batch = this.deps.store.closedSessionsBefore(before, 50);
      if (batch.length === 0) return removed;
      for (const { session } of batch) {
        await this.deps.outputs.removeSession(session.id);
        await fs.rm(path.join(this.deps.config.dataDir, 'tasks', session.id), { recursive: true, force: true });
        if (session.workspace_owned) {
          const root = await this.workspaceRoot();
          const dir = path.resolve(session.workspace);
          // Nothing is deleted while a live session refers to it (its workspace is this one,
          // inside it or around it).
          const inUse = this.deps.store.activeSessions().some((a) => overlaps(path.resolve(a.session.workspace), dir));
          if (!inUse && dir.startsWith(root + path.sep) && path.dirname(dir) === root) await fs.rm(dir, { recursive: true, force: true });
        }
        await fs.rm(path.join(this.deps.config.dataDir, 'sandbox', session.id), { recursive: true, force: true });
        this.deps.store.deleteSession(session.id);
        removed++;
      }
    }
  }

  /** Sandbox state (home, /tmp, proxy socket) of sessions that are not active: a crash left it. */
  async sweepSandboxState(): Promise<number> {
    const dir = path.join(this.deps.config.dataDir, 'sandbox');
    let names: string[] = [];
    try {
      names = await fs.readdir(dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!name.startsWith('ses_') || this.runtimes.has(name)) continue;
      await fs.rm(path.join(dir, name), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /** The limits a session asks for, each at most the operator's; a higher one is a problem. */
  private limitsFor(asked: Partial<ResourceLimits> | undefined, problems: string[]): ResourceLimits {
    const max = this.deps.config.sandboxLimits;
    const out: ResourceLimits = { ...max };
    for (const [k, v] of Object.entries(asked ?? {}) as [keyof ResourceLimits, number][]) {
      if (v > max[k]) problems.push(`limits.${k}: ${v} is above the operator's limit of ${max[k]} (a session may only lower limits)`);
      else out[k] = v;
    }
    return out;
  }

  /** A session's process sandbox: its processes' home, /tmp, limits and network. */
  private sessionSandbox(sessionId: string, workspace: string, network: boolean, limits: ResourceLimits): SessionSandbox {
    const { config, events } = this.deps;
    return new SessionSandbox(this.deps.sandbox, {
      sessionId,
      workspace,
      network,
      limits,
      stateDir: path.join(config.dataDir, 'sandbox', sessionId),
      egress: this.egress(),
      ...(config.web.proxy ? { upstreamProxy: config.web.proxy } : {}),
      ownAddresses: this.deps.ownAddresses ?? (() => []),
      clock: this.deps.clock,
      onEgress: (e) => {
        const turnId = this.runtimes.get(sessionId)?.activeTurn?.id;
        events.emit(sessionId, { type: 'egress.request', ...(turnId ? { turn_id: turnId } : {}), via: 'sandbox_proxy', ...e });
      },
    });
  }

  /** A session's hooks: the operator's in-process ones, the operator's file hooks, then its own. */
  private hooksFor(own: HookRegistration[], sandbox: SandboxStatus, processes: SessionSandbox): HookRegistry {
    const operator = this.deps.operatorHooks
      ? compileSessionHooks(
          this.deps.operatorHooks,
          { mode: this.deps.sandbox.mode, usable: sandbox.usable, detail: sandbox.detail, session: processes },
          this.egress(),
          'NORMA_HOOKS_FILE',
          this.hookEvidence,
        ).registrations
      : [];
    return this.deps.hooks.with([...operator, ...own]);
  }

  /** The egress policy outbound requests made for sessions go through. */
  private egress(): EgressPolicy {
    return { allow: this.deps.config.egressAllow, ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}) };
  }

  // ---- restart -------------------------------------------------------------------------

  /**
   * Brings back what a previous process left in a durable store. Every active session gets its
   * runtime again. Its open turn, if any: calls that had started and have no result get an
   * "interrupted" result (they may have partly run); if calls still wait on permission requests,
   * the turn stays `awaiting_permission` and goes on when they are answered (`turn.resumed`);
   * otherwise the turn ends `interrupted` and every call without a result gets one.
   */
  async recover(): Promise<{ sessions: number; resumed: number; interrupted: number }> {
    const out = { sessions: 0, resumed: 0, interrupted: 0 };
    if (!this.deps.store.durable) return out;
    const sandbox = await this.deps.sandboxStatus();
    for (const record of this.deps.store.activeSessions()) {
      const s = this.normalized(record).session;
      let workspace: Workspace;
      try {
        workspace = await Workspace.open(s.workspace);
      } catch (err) {
        this.deps.logger.warn({ session_id: s.id, err }, 'session workspace unusable after restart; closing the session');
        this.endOpenTurn(record, 'The server restarted and the session workspace is gone.', 'server_restart');
        const current = this.record(s.id);
        current.session.status = 'closed';
        current.session.closed_at = this.deps.clock().toISOString();
        this.deps.store.transaction(() => {
          this.saveSession(current);
          this.deps.events.emit(s.id, { type: 'session.closed', reason: `workspace unusable after restart: ${(err as Error).message}` });
        });
        continue;
      }
      const registry = new ToolRegistry();
      const missing: string[] = [];
      for (const name of s.tools) {
        const one = selectTools([name], { processSandbox: sandbox, webSearch: this.webSearch });
        if (one.ok) for (const tool of one.tools) registry.register(tool);
        else missing.push(name);
      }
      if (missing.length > 0) {
        const current = this.record(s.id);
        const warning = `after a restart these tools could not be installed again: ${missing.join(', ')}`;
        if (!current.session.warnings.includes(warning)) {
          current.session.warnings = [...current.session.warnings, warning];
          this.saveSession(current);
        }
      }
      const processes = this.sessionSandbox(s.id, workspace.root, s.sandbox_network, s.limits);
      const compiled = compileSessionHooks(
        record.hooks ?? undefined,
        { mode: this.deps.sandbox.mode, usable: sandbox.usable, detail: sandbox.detail, session: processes },
        this.egress(),
        'hooks',
        this.hookEvidence,
      );
      if (compiled.problems.length > 0) {
        // A hook that cannot run any more (its program is gone, the sandbox broke) is said, not dropped silently.
        this.deps.logger.warn({ session_id: s.id, problems: compiled.problems }, 'session hooks could not all be installed again after a restart');
        const current = this.record(s.id);
        const warning = `after a restart these hooks could not be installed again: ${compiled.problems.join('; ')}`;
        if (!current.session.warnings.includes(warning)) {
          current.session.warnings = [...current.session.warnings, warning];
          this.saveSession(current);
        }
      }
      const rt = this.newRuntime(this.record(s.id).session, registry, workspace, processes, this.hooksFor(compiled.registrations, sandbox, processes));
      const model = resolveModel(record.model ?? undefined, record.modelApiKey, this.deps.config.model);
      if (model.ok) rt.model = model.model;
      else {
        const current = this.record(s.id);
        const warning = `after a restart the session's model could not be configured again: ${model.problems.join('; ')}`;
        if (!current.session.warnings.includes(warning)) {
          current.session.warnings = [...current.session.warnings, warning];
          this.saveSession(current);
        }
      }
      this.runtimes.set(s.id, rt);
      out.sessions++;

      const turnId = s.active_turn_id;
      const turn = turnId ? this.deps.store.getTurn(s.id, turnId) : undefined;
      if (turn && (turn.status === 'running' || turn.status === 'awaiting_permission')) {
        const resumed = this.resumeTurn(s.id, rt, turn);
        if (resumed) out.resumed++;
        else out.interrupted++;
      } else if (turnId) {
        // The turn ended but its end was not recorded on the session (the store failed then).
        const current = this.record(s.id);
        current.session.active_turn_id = null;
        this.saveSession(current);
      }
      await this.runLifecycleHooks('SessionStart', this.record(s.id).session, { reason: 'resume' }, rt.hooks);
    }
    return out;
  }

  /** Recovery of one open turn; true when it waits on permission requests again. */
  private resumeTurn(sessionId: string, rt: SessionRuntime, turn: Turn): boolean {
    const { store } = this.deps;
    const done = new Set(turn.results.map((r) => r.tool_use_id));
    const started = new Set(store.turnEvents(sessionId, turn.id, 'tool.started').map((e) => (e as { tool_use_id: string }).tool_use_id));
    const pending = store.listPermissions(sessionId, 'pending').filter((p) => p.turn_id === turn.id && !done.has(p.tool_use_id));
    const waiting = new Map(pending.map((p) => [p.tool_use_id, p]));
    if (turn.kind === 'prompt' && !rt.model) {
      // Its model loop cannot go on: the calls it waits for are not asked about any more.
      for (const p of waiting.values()) this.broker.abandon(p, 'after the restart the session has no usable model');
      waiting.clear();
    }
    const results = new Map(turn.results.map((r) => [r.tool_use_id, r]));
    for (const tu of turn.tool_uses) {
      if (results.has(tu.id) || waiting.has(tu.id)) continue;
      if (started.has(tu.id)) {
        results.set(tu.id, errorResult(tu.id, 'Interrupted: the server restarted while this call was running; it may have partly run.'));
      } else if (waiting.size === 0) {
        results.set(tu.id, errorResult(tu.id, 'Not run: the server restarted before this call started.'));
      }
    }
    const ordered = turn.tool_uses.flatMap((tu) => (results.has(tu.id) ? [results.get(tu.id)!] : []));
    const added = ordered.filter((r) => !done.has(r.tool_use_id));

    if (waiting.size === 0) {
      const now = this.deps.clock().toISOString();
      const ended: Turn = {
        ...turn,
        results: ordered,
        pending: [],
        status: 'interrupted',
        error: { code: 'server_restart', message: 'The server stopped while the turn was running; unfinished calls got error results.' },
        ended_at: now,
      };
      if (ended.messages) ended.messages = closeTranscript(ended.messages as Message[], results);
      store.transaction(() => {
        store.putTurn(ended);
        for (const r of added) {
          const tu = turn.tool_uses.find((t) => t.id === r.tool_use_id)!;
          this.deps.events.emit(sessionId, { type: 'tool.completed', turn_id: turn.id, tool_use_id: tu.id, tool: tu.name, result: r });
        }
        this.deps.events.emit(sessionId, { type: 'turn.interrupted', turn: structuredClone(ended) });
        const current = this.record(sessionId);
        current.session.active_turn_id = null;
        this.saveSession(current);
      });
      return false;
    }

    const paused: Turn = { ...turn, results: ordered, pending: [...waiting.values()].map((p) => p.id), status: 'awaiting_permission' };
    const runner = this.makeRunner(sessionId, rt, paused, waiting);
    rt.activeTurn = runner;
    store.transaction(() => {
      store.putTurn(paused);
      for (const r of added) {
        const tu = turn.tool_uses.find((t) => t.id === r.tool_use_id)!;
        this.deps.events.emit(sessionId, { type: 'tool.completed', turn_id: turn.id, tool_use_id: tu.id, tool: tu.name, result: r });
      }
      runner.resume();
    });
    return true;
  }

  /** Ends a session's open turn without resuming it (its session cannot go on). */
  private endOpenTurn(record: SessionRecord, message: string, code: string): void {
    const turnId = record.session.active_turn_id;
    const turn = turnId ? this.deps.store.getTurn(record.session.id, turnId) : undefined;
    if (!turn || (turn.status !== 'running' && turn.status !== 'awaiting_permission')) return;
    const results = new Map(turn.results.map((r) => [r.tool_use_id, r]));
    const ended: Turn = {
      ...turn,
      results: turn.tool_uses.map((tu) => results.get(tu.id) ?? errorResult(tu.id, `Interrupted: ${message}`)),
      pending: [],
      status: 'interrupted',
      error: { code, message },
      ended_at: this.deps.clock().toISOString(),
    };
    this.deps.store.transaction(() => {
      for (const p of this.deps.store.listPermissions(record.session.id, 'pending')) {
        if (p.turn_id === turn.id) this.broker.abandon(p, message);
      }
      this.deps.store.putTurn(ended);
      this.deps.events.emit(record.session.id, { type: 'turn.interrupted', turn: structuredClone(ended) });
    });
  }

  /** A session's background tasks, logging under the data directory and announcing themselves as events. */
  private backgroundTasks(sessionId: string): BackgroundTasks {
    const { events } = this.deps;
    return new BackgroundTasks(path.join(this.deps.config.dataDir, 'tasks', sessionId), this.deps.newId, this.deps.clock, {
      started: (t, origin) =>
        events.emit(sessionId, { type: 'task.started', task_id: t.id, command: t.command, turn_id: origin.turnId, tool_use_id: origin.toolUseId }),
      completed: (t) =>
        events.emit(sessionId, {
          type: 'task.completed',
          task_id: t.id,
          status: t.status === 'running' ? 'exited' : t.status,
          exit_code: t.exitCode,
          signal: t.signal,
          output_bytes: t.outputBytes,
        }),
    });
  }

  private async workspaceRoot(): Promise<string> {
    if (this.workspaceRootReal === undefined) {
      await fs.mkdir(this.deps.config.workspaceRoot, { recursive: true, mode: 0o700 });
      this.workspaceRootReal = await fs.realpath(this.deps.config.workspaceRoot);
    }
    return this.workspaceRootReal;
  }

  /** A client-chosen workspace must be an existing directory under NORMA_WORKSPACE_ROOT. */
  private async checkWorkspace(requested: string): Promise<string | { problem: string }> {
    const root = await this.workspaceRoot();
    if (requested.includes('\0')) return { problem: 'workspace: contains a NUL byte' };
    const candidate = path.resolve(root, requested);
    let real: string;
    try {
      real = await fs.realpath(candidate);
    } catch {
      return { problem: `workspace: ${requested} does not exist (create it under ${root} first)` };
    }
    if (real === root || !real.startsWith(root + path.sep)) {
      return { problem: `workspace: ${requested} is not a directory under the workspace root ${root}` };
    }
    // The server makes its workspaces as <root>/ses_…: each belongs to its session only, so no
    // other session may name one, or a directory inside one (a link to it included).
    const top = real.slice(root.length + 1).split(path.sep)[0]!;
    if (top.startsWith('ses_')) {
      return { problem: `workspace: ${requested} is (or is inside) ${top}, a workspace the server made for a session; it belongs to that session only` };
    }
    if (!(await fs.stat(real)).isDirectory()) return { problem: `workspace: ${requested} is not a directory` };
    return real;
  }

  private record(id: string): SessionRecord {
    const r = this.deps.store.getSession(id);
    if (!r) throw notFound('session', id);
    return this.normalized(r);
  }

  /** Fields a session stored by an earlier version lacks, filled with what then applied. */
  private normalized(r: SessionRecord): SessionRecord {
    r.session.limits ??= { enforcement: this.deps.sandbox.mode === 'off' ? 'none' : this.deps.sandbox.limits.enforcement, ...this.deps.config.sandboxLimits };
    return r;
  }

  private runtime(id: string): SessionRuntime {
    const record = this.record(id);
    const rt = this.runtimes.get(id);
    if (!rt || record.session.status !== 'active') throw new DomainError('conflict', `session ${id} is closed`);
    return rt;
  }

  get(id: string): Session {
    return this.record(id).session;
  }

  list(limit: number, cursor: string | undefined): { items: Session[]; next_cursor: string | null } {
    const take = Math.min(Math.max(limit, 1), MAX_LIST_LIMIT);
    let after: { created_at: string; id: string } | undefined;
    if (cursor !== undefined) {
      try {
        const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
        if (typeof parsed.c !== 'string' || typeof parsed.i !== 'string') throw new Error('shape');
        after = { created_at: parsed.c, id: parsed.i };
      } catch {
        throw new DomainError('invalid', 'cursor is not a cursor this server returned (pass next_cursor unchanged)');
      }
    }
    const page = this.deps.store.listSessions({ limit: take + 1, ...(after ? { after } : {}) });
    const items = page.slice(0, take).map((r) => this.normalized(r).session);
    const last = items[items.length - 1];
    const next_cursor =
      page.length > take && last ? Buffer.from(JSON.stringify({ c: last.created_at, i: last.id })).toString('base64url') : null;
    return { items, next_cursor };
  }

  patch(id: string, body: SessionPatch): Session {
    const record = this.record(id);
    if (record.session.status !== 'active') throw new DomainError('conflict', `session ${id} is closed`);
    const problems = [
      ...parseRules('allowed_tools', body.allowed_tools ?? []).problems,
      ...parseRules('disallowed_tools', body.disallowed_tools ?? []).problems,
      ...parseRules('ask_rules', body.ask_rules ?? []).problems,
      ...parseRules('add_rules', (body.add_rules ?? []).map((r) => r.rule)).problems,
      ...parseRules('remove_rules', body.remove_rules ?? []).problems,
    ];
    const known = new Set(record.session.rules.map((r) => r.rule));
    for (const r of body.remove_rules ?? []) if (!known.has(r)) problems.push(`remove_rules: ${JSON.stringify(r)} is not a session rule`);
    if (problems.length > 0) throw new DomainError('invalid', `the change has ${problems.length} problem(s): ${problems.join('; ')}`, problems);

    const s = record.session;
    if (body.permission_mode !== undefined) s.permission_mode = body.permission_mode;
    if (body.allowed_tools !== undefined) s.allowed_tools = body.allowed_tools;
    if (body.disallowed_tools !== undefined) s.disallowed_tools = body.disallowed_tools;
    if (body.ask_rules !== undefined) s.ask_rules = body.ask_rules;
    if (body.remove_rules) s.rules = s.rules.filter((r) => !body.remove_rules!.includes(r.rule));
    const now = this.deps.clock().toISOString();
    for (const r of body.add_rules ?? []) {
      s.rules = s.rules.filter((x) => !(x.rule === r.rule && x.behavior === r.behavior));
      s.rules.push({ rule: r.rule, behavior: r.behavior, source: 'patch', added_at: now });
    }
    return this.saveAndAnnounce(record);
  }

  /** The one way a session is written: keeps the runtime's parsed rules in step. */
  private saveSession(record: SessionRecord): void {
    this.deps.store.putSession(record);
    // What the runtime holds follows the store once the write has committed: a rolled-back
    // write (a full disk) leaves the rules and mode in force exactly as stored.
    const session = structuredClone(record.session);
    this.deps.store.afterCommit(() => {
      const rt = this.runtimes.get(session.id);
      const key = permissionKey(session);
      if (rt && rt.permissionKey !== key) {
        rt.permission = this.buildPermissionContext(session);
        rt.permissionKey = key;
        // A new rule or mode may decide requests that wait for a person.
        void this.broker.reevaluatePending(session.id);
      }
    });
  }

  private recordDecision(sessionId: string, turnId: string, note: DecisionNote): void {
    const decision: Decision = {
      seq: this.deps.store.lastDecisionSeq(sessionId) + 1,
      session_id: sessionId,
      turn_id: turnId,
      ...note,
      created_at: this.deps.clock().toISOString(),
    };
    this.deps.store.appendDecision(decision);
  }

  listDecisions(sessionId: string, query: DecisionQuery): { items: Decision[]; next_after: number | null } {
    this.record(sessionId);
    const page = this.deps.store.listDecisions(sessionId, { ...query, limit: query.limit + 1 });
    const items = page.slice(0, query.limit);
    return { items, next_after: page.length > query.limit ? items[items.length - 1]!.seq : null };
  }

  private saveAndAnnounce(record: SessionRecord): Session {
    this.deps.store.transaction(() => {
      this.saveSession(record);
      this.deps.events.emit(record.session.id, { type: 'session.updated', session: record.session });
    });
    return record.session;
  }

  /** Closes a session: cancels its turn, runs SessionEnd hooks, emits the final event. Idempotent. */
  async close(id: string, reason = 'closed by the client'): Promise<void> {
    // Concurrent closes share one run: SessionEnd and session.closed happen once.
    const inProgress = this.closing.get(id);
    if (inProgress) return inProgress;
    if (this.record(id).session.status === 'closed') return;
    const run = this.closeNow(id, reason).finally(() => this.closing.delete(id));
    this.closing.set(id, run);
    return run;
  }

  private async closeNow(id: string, reason: string): Promise<void> {
    const rt = this.runtimes.get(id);
    // Gone from the runtimes at once: no turn can start while the session winds down.
    this.runtimes.delete(id);
    const by = reason === 'server shutdown' ? 'shutdown' : 'session_closed';
    rt?.activeTurn?.stop(new TurnStop(`the session was closed (${reason})`, by), 'cancelled', {
      code: 'session_closed',
      message: `The session was closed (${reason}) while the turn ran.`,
    });
    rt?.shells.closeAll();
    await rt?.tasks.closeAll();
    if (rt) await closeProviders(rt);
    // Re-read: the cancelled turn updated the record.
    const current = this.record(id);
    current.session.status = 'closed';
    current.session.active_turn_id = null;
    current.session.closed_at = this.deps.clock().toISOString();
    this.saveSession(current);
    await this.runLifecycleHooks('SessionEnd', current.session, { reason }, rt?.hooks);
    // After SessionEnd: its command hooks run in the session's sandbox too.
    await rt?.sandbox.close();
    this.deps.events.emit(id, { type: 'session.closed', reason });
  }

  /**
   * Graceful shutdown. No turn starts any more; running calls may finish within `graceMs`,
   * then turns still running are stopped (`interrupted`). With a durable store sessions stay
   * active and a turn waiting only on permission requests stays `awaiting_permission`: the next
   * process resumes it. SessionEnd hooks fire (SessionStart fires again, reason "resume", on
   * restart). With the in-memory store nothing survives, so every session is closed.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    if (!this.deps.store.durable) return this.closeAll('server shutdown');
    const runners = [...this.runtimes.values()].flatMap((rt) => (rt.activeTurn ? [rt.activeTurn] : []));
    const deadline = Date.now() + graceMs;
    await Promise.all(runners.map((r) => r.waitQuiet(deadline - Date.now())));
    for (const r of runners) {
      if (r.isFinal() || (r.runningCalls === 0 && r.turn.status === 'awaiting_permission')) continue;
      r.stop(new TurnStop('the server shut down while the call was running', 'shutdown'), 'interrupted', {
        code: 'server_shutdown',
        message: 'The server shut down while the turn was running; unfinished calls got error results.',
      });
    }
    // Requests still pending stay pending in the store; nothing in this process waits on them.
    this.broker.detachAll();
    for (const [id, rt] of this.runtimes) {
      rt.shells.closeAll();
      await rt.tasks.closeAll();
      await closeProviders(rt);
      const record = this.deps.store.getSession(id);
      if (record) await this.runLifecycleHooks('SessionEnd', record.session, { reason: 'server shutdown' }, rt.hooks);
      await rt.sandbox.close();
    }
    this.runtimes.clear();
  }

  /** Closes every active session (graceful shutdown): SessionEnd fires for each. */
  async closeAll(reason: string): Promise<void> {
    const ids = new Set([...this.runtimes.keys(), ...this.closing.keys()]);
    await Promise.all([...ids].map((id) => this.close(id, reason)));
  }

  tools(id: string) {
    const record = this.record(id);
    const rt = this.runtimes.get(id);
    if (rt) return rt.registry.exposed();
    // A closed session keeps describing the tools it had.
    const registry = new ToolRegistry();
    const selection = selectTools(record.session.tools, { processSandbox: { usable: true, detail: '' } });
    if (selection.ok) for (const tool of selection.tools) registry.register(tool);
    return registry.exposed();
  }

  private async runLifecycleHooks(
    event: 'SessionStart' | 'SessionEnd',
    session: Session,
    extra: Partial<HookInput>,
    hooks: HookRegistry = this.deps.hooks,
  ): Promise<void> {
    // A lifecycle request answers within the operator's bound whatever its hooks do: a hook
    // still running then is stopped (and recorded as failed), later ones of the event are skipped.
    const bound = new AbortController();
    const seconds = this.deps.config.lifecycleTimeoutMs / 1000;
    const timer = setTimeout(
      () => bound.abort(new HookStop(`stopped after ${seconds} s: ${event} hooks get at most NORMA_LIFECYCLE_TIMEOUT_S together`)),
      this.deps.config.lifecycleTimeoutMs,
    );
    const result = await hooks.run(
      event,
      {
        hook_event_name: event,
        session_id: session.id,
        cwd: session.workspace,
        permission_mode: session.permission_mode,
        ...extra,
      },
      { stopOnBlock: false, signal: bound.signal, onRun: (r) => this.emitHookRun(session.id, r) },
    ).finally(() => clearTimeout(timer));
    for (const f of result.failures) this.deps.logger.warn({ session_id: session.id, hook: f.hook, error: f.error }, `${event} hook failed`);
  }

  // ---- turns ---------------------------------------------------------------------------

  startTurn(sessionId: string, body: TurnCreate): Turn {
    const rt = this.runtime(sessionId);
    if (body.prompt !== undefined && body.tool_uses !== undefined) {
      throw new DomainError('invalid', 'a turn has either `tool_uses` (direct) or `prompt`, not both');
    }
    if (body.prompt === undefined && body.tool_uses === undefined) throw new DomainError('invalid', 'a turn needs `tool_uses` (direct) or `prompt`');
    if (body.prompt !== undefined && !rt.model) {
      throw new DomainError(
        'invalid',
        'this session has no model, so it cannot run prompt turns: give `model` when creating the session, or configure NORMA_MODEL_PROVIDER on the server; direct turns (`tool_uses`) work without one',
      );
    }
    if (this.stopping) throw new DomainError('unavailable', 'the server is shutting down; post the turn again once it is back');
    if (rt.activeTurn) {
      throw new DomainError('conflict', `session ${sessionId} already runs turn ${rt.activeTurn.id} (${rt.activeTurn.turn.status}); one turn runs at a time`);
    }
    const seen = new Set<string>();
    const toolUses = (body.tool_uses ?? []).map((tu, i) => {
      const id = tu.id ?? this.deps.newId('toolu');
      if (seen.has(id)) throw new DomainError('invalid', `tool_uses[${i}].id ${JSON.stringify(id)} repeats an earlier id in this turn`);
      seen.add(id);
      return { type: 'tool_use' as const, id, name: tu.name, input: tu.input ?? {} };
    });

    const record = this.record(sessionId);
    const turn: Turn = {
      id: this.deps.newId('turn'),
      session_id: sessionId,
      kind: body.prompt !== undefined ? 'prompt' : 'direct',
      status: 'running',
      tool_uses: toolUses,
      results: [],
      pending: [],
      ...(body.prompt !== undefined
        ? { prompt: typeof body.prompt === 'string' ? [{ type: 'text' as const, text: body.prompt }] : body.prompt, messages: [], model_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } }
        : {}),
      created_at: this.deps.clock().toISOString(),
    };
    record.session.active_turn_id = turn.id;

    const runner = this.makeRunner(sessionId, rt, turn, new Map());
    // The turn, the session's pointer to it and turn.started commit together; only then is it
    // the session's turn in memory too (a failed commit leaves the session free for the next).
    this.deps.store.transaction(() => {
      this.deps.store.putTurn(turn);
      this.saveSession(record);
      runner.announce();
    });
    rt.activeTurn = runner;
    runner.start();
    return structuredClone(runner.turn);
  }

  /**
   * The runner of a turn. `resumable` maps tool_use ids to permission requests left pending by
   * an earlier process: when the call asks again about the same input, it waits on that request
   * instead of opening a new one.
   */
  private makeRunner(sessionId: string, rt: SessionRuntime, turn: Turn, resumable: Map<string, PermissionRequest>): TurnRunner {
    const session = this.record(sessionId).session;
    const deps: TurnRunnerDeps = {
      store: this.deps.store,
      events: this.deps.events,
      clock: this.deps.clock,
      logger: this.deps.logger,
      env: {
        sessionId,
        registry: rt.registry,
        validator: this.deps.validator,
        hooks: rt.hooks,
        onHookRun: (r, call) => this.emitHookRun(sessionId, r, turn.id, call),
        workspace: rt.workspace,
        readState: rt.readState,
        sandbox: rt.sandbox,
        tasks: rt.tasks,
        shells: rt.shells,
        capChars: session.output_cap_chars,
        spill: (p) => this.deps.outputs.begin({ sessionId, turnId: turn.id, ...p }),
        permissionContext: () => rt.permission,
        awaitApproval: (request, signal, reevaluate) => {
          const timeoutS = this.get(sessionId).permission_timeout_s;
          const earlier = resumable.get(request.toolUseId);
          if (earlier && inputDigest(earlier.input) === inputDigest(request.input)) {
            resumable.delete(request.toolUseId);
            return this.broker.awaitApproval(sessionId, runner, request, timeoutS, signal, reevaluate, earlier);
          }
          return this.broker.awaitApproval(sessionId, runner, request, timeoutS, signal, reevaluate);
        },
        recordDecision: (note) => this.recordDecision(sessionId, turn.id, note),
        web: rt.web,
        fetcher: (call, tool) =>
          egressFetcher({
            policy: this.egress(),
            ...(this.deps.config.web.proxy ? { proxy: this.deps.config.web.proxy } : {}),
            clock: this.deps.clock,
            onEvidence: (e) => this.deps.events.emit(sessionId, { type: 'egress.request', turn_id: turn.id, tool_use_id: call.id, tool, ...e }),
          }),
      },
      onFinished: (r) => {
        if (rt.activeTurn === r) rt.activeTurn = null;
        try {
          const current = this.deps.store.getSession(sessionId);
          if (current && current.session.active_turn_id === r.id) {
            current.session.active_turn_id = null;
            this.saveSession(current);
          }
        } catch (err) {
          // The next start-up reconciles the stored pointer with the turn's state.
          this.deps.logger.error({ err, session_id: sessionId, turn_id: r.id }, 'could not record the end of the turn');
        }
        // A request an earlier process left that no call came back to is not waited for any more.
        for (const earlier of resumable.values()) this.broker.abandon(earlier, 'after the restart the call no longer asked about this input');
        resumable.clear();
      },
    };
    const runner: TurnRunner = turn.kind === 'prompt' ? new PromptTurnRunner(turn, deps, this.promptDeps(sessionId, rt, turn)) : new TurnRunner(turn, deps);
    return runner;
  }

  /** What a prompt turn's model loop needs: the provider, the earlier conversation, the tools, the hooks. */
  private promptDeps(sessionId: string, rt: SessionRuntime, turn: Turn): PromptTurnDeps {
    const model = rt.model;
    if (!model) throw new DomainError('invalid', `session ${sessionId} has no model for prompt turn ${turn.id}`);
    let history: Message[] | undefined;
    const options = { egress: this.egress(), ...(this.deps.modelOptions ?? {}) };
    const providers = (rt.providers ??= { main: createProvider(model, options), subagent: createProvider(model, options, 'subagent') });
    return {
      provider: providers.main,
      subagentProvider: providers.subagent,
      model,
      system: this.record(sessionId).session.system_prompt ?? undefined,
      history: () => {
        if (!history) {
          const all = this.deps.store.listTurns(sessionId);
          const at = all.findIndex((t) => t.id === turn.id);
          history = (at >= 0 ? all.slice(0, at) : all).filter((t) => t.kind === 'prompt').flatMap((t) => (t.messages ?? []) as Message[]);
        }
        return history;
      },
      tools: () => rt.registry.exposed().map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema as Record<string, unknown> })),
      hooks: rt.hooks,
      hookBase: () => {
        const s = this.record(sessionId).session;
        return { session_id: sessionId, turn_id: turn.id, cwd: s.workspace, permission_mode: s.permission_mode };
      },
      onHookRun: (r, toolUseId) => this.emitHookRun(sessionId, r, turn.id, toolUseId),
    };
  }

  private buildPermissionContext(s: Session): PermissionContext {
    const parse = (field: string, texts: string[]): ParsedRule[] => parseRules(field, texts).rules;
    const byBehavior = (b: SessionRule['behavior']) => s.rules.filter((r) => r.behavior === b).map((r) => r.rule);
    const rules: RuleSet = {
      allow: parse('allow', [...s.allowed_tools, ...byBehavior('allow')]),
      deny: parse('deny', [...s.disallowed_tools, ...byBehavior('deny')]),
      ask: parse('ask', [...s.ask_rules, ...byBehavior('ask')]),
    };
    return { mode: s.permission_mode, rules };
  }

  /** Waits up to `seconds` for the turn to finish or pause, then returns it as it is. */
  async waitForTurn(sessionId: string, turnId: string, seconds: number): Promise<Turn> {
    const rt = this.runtimes.get(sessionId);
    if (rt?.activeTurn?.id === turnId) await rt.activeTurn.waitSettled(seconds * 1000);
    return this.getTurn(sessionId, turnId);
  }

  getTurn(sessionId: string, turnId: string): Turn {
    this.record(sessionId);
    const t = this.deps.store.getTurn(sessionId, turnId);
    if (!t) throw notFound('turn', turnId);
    return t;
  }

  listTurns(sessionId: string): Turn[] {
    this.record(sessionId);
    return this.deps.store.listTurns(sessionId);
  }

  cancelTurn(sessionId: string, turnId: string): Turn {
    const turn = this.getTurn(sessionId, turnId);
    const rt = this.runtimes.get(sessionId);
    if (rt?.activeTurn?.id === turnId) {
      rt.activeTurn.stop(new TurnStop('the turn was cancelled by the client', 'cancel'), 'cancelled', {
        code: 'cancelled',
        message: 'The turn was cancelled by the client.',
      });
      return this.getTurn(sessionId, turnId);
    }
    if (turn.status === 'cancelled') return turn;
    throw new DomainError('conflict', `turn ${turnId} has already ended (${turn.status})`);
  }

  // ---- outputs (spill files) ------------------------------------------------------------

  listOutputs(sessionId: string): Output[] {
    this.record(sessionId);
    return this.deps.store.listOutputs(sessionId);
  }

  /** The record and file path of an output to serve; 404 unknown, 410 removed by retention. */
  outputForDownload(sessionId: string, outputId: string): { output: Output; file: string } {
    this.record(sessionId);
    const output = this.deps.store.getOutput(sessionId, outputId);
    if (!output) throw notFound('output', outputId);
    if (output.status !== 'available') {
      throw new DomainError('gone', `output ${outputId} was removed by retention at ${output.expired_at ?? 'an earlier time'}; its record (sha256 ${output.sha256}) remains`);
    }
    return { output, file: this.deps.outputs.filePath(sessionId, outputId) };
  }

  // ---- permissions ---------------------------------------------------------------------

  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    this.record(sessionId);
    return this.deps.store.listPermissions(sessionId, status);
  }

  respondPermission(sessionId: string, permissionId: string, response: PermissionResponse): PermissionRequest {
    this.record(sessionId); // 404 for an unknown session
    if (response.behavior === 'allow' && response.remember) {
      const { problems } = parseRules('remember', response.remember);
      if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
    }
    const resolved = this.broker.respond(sessionId, permissionId, response);
    if (response.behavior === 'allow' && response.remember && response.remember.length > 0) {
      // Added before the waiting call resumes (it continues in a later microtask), so the
      // call's re-evaluation already sees them.
      const current = this.record(sessionId);
      const now = this.deps.clock().toISOString();
      for (const rule of response.remember) {
        if (!current.session.rules.some((r) => r.rule === rule && r.behavior === 'allow')) {
          current.session.rules.push({ rule, behavior: 'allow', source: 'remember', added_at: now });
        }
      }
      this.saveAndAnnounce(current);
    }
    return resolved;
  }
}

async function closeProviders(rt: SessionRuntime): Promise<void> {
  const p = rt.providers;
  rt.providers = undefined;
  if (p) await Promise.all([p.main.close?.(), p.subagent.close?.()]);
}

/** Is one path the other, or inside it? */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(b + path.sep) || b.startsWith(a + path.sep);
}

function permissionKey(s: Session): string {
  return JSON.stringify([s.permission_mode, s.allowed_tools, s.disallowed_tools, s.ask_rules, s.rules.map((r) => [r.rule, r.behavior])]);
}
