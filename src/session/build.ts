// record → runtime: the one function that makes a session's live parts from what is stored,
// used when a session is created and when a restart brings it back (restart restores with
// the code that creates). What cannot be made again is returned as problems; creation refuses
// them, recovery turns them into warnings on the session.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventLog } from '../events/log.js';
import { compileSessionHooks } from '../hooks/config.js';
import type { HookRegistration, HookRegistry, SessionHooks } from '../hooks/registry.js';
import type { Clock, IdFactory } from '../ids.js';
import { resolveModel } from '../model/index.js';
import type { EgressPolicy } from '../sandbox/egress.js';
import { Workspace } from '../sandbox/paths.js';
import type { SandboxHost, SandboxStatus } from '../sandbox/process.js';
import { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { SessionRecord, Store } from '../store/store.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { SessionServices, SkillInfo } from '../tools/capability.js';
import type { TaskEvents } from '../tools/capability.js';
import { readDenyRule } from '../permission/rules.js';
import { egressFetcher } from '../egress/client.js';
import type { SearchStatus } from '../web/state.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { HookAudit } from './lifecycle.js';
import type { SessionRuntime } from './runtime.js';
import { memoryDir, workspaceOutsideTenant } from './data-dirs.js';
import { openSkillFolder, sessionSkills } from './skills.js';
import { SessionSettings } from './settings.js';
import { ToolRefusal } from '../tools/tool.js';
import { matchesAny } from '../tools/name-pattern.js';
import { sessionMcpHub, syncMcpTools, type McpHubDeps } from './mcp-tools.js';
import { EventGate } from './event-gate.js';
import { sessionRedactor } from './secrets.js';
import type { TenantPolicies } from '../tenants/policy.js';
import { openCheckpoints } from './checkpoints.js';
import type { TenantCheckpointBudgets } from './checkpoint-budget.js';
import type { InteractionBroker } from '../interaction/broker.js';
import type { Secrets } from '../contract/secrets.js';
import { sessionNetwork, type SessionNetwork } from './network.js';
import { sessionClientTools } from './client-tools.js';

export interface BuildDeps extends McpHubDeps {
  /** The one broker for every pause: a connection of an `"ask"` session waits on it. */
  broker: InteractionBroker;
  /** The operator's secrets (NORMA_SECRETS_FILE). */
  operatorSecrets?: Secrets;
  /** The certificates real servers are verified against when the proxy terminates TLS. */
  upstreamCa?: string[];
  config: Config;
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdFactory;
  sandbox: SandboxHost;
  /** The server's in-process hooks (every session runs them). */
  hooks: HookRegistry;
  /** Operator hooks from NORMA_HOOKS_FILE, run for every session before its own. */
  operatorHooks?: SessionHooks;
  egress: EgressPolicy;
  audit: HookAudit;
  webSearch: SearchStatus;
  catalog: ToolCatalog;
  /** The server's own listening sockets (a sandbox's network never reaches them). */
  ownAddresses: () => { address: string; port: number }[];
  /** The session's rules or mode changed: its waiting requests are evaluated again. */
  onPermissionChange(sessionId: string): void;
  /** The tenants' policies as in force: deny rules, maximum mode, hooks every session of the tenant runs. */
  tenants: TenantPolicies;
  /** The tenants' checkpoint disk budgets, shared by each tenant's sessions. */
  checkpointBudgets?: TenantCheckpointBudgets;
  logger?: Logger;
}

export interface BuiltRuntime {
  runtime: SessionRuntime;
  /** Stored tool names that cannot be installed now. */
  missingTools: string[];
  /** Stored hooks that cannot be installed now. */
  hookProblems: string[];
  /** Why the stored model cannot be configured now. */
  modelProblems: string[];
  /** Skills the session chose that cannot be used now. */
  skillProblems: string[];
  /** The session's own MCP servers that could not be started (a 400 at creation, a warning after a restart). */
  mcpProblems: string[];
  /** The operator's MCP servers that could not be started (a warning). */
  mcpWarnings: string[];
  /** The session's client tools that could not be registered (their schemas did not compile now). */
  clientToolProblems: string[];
  /**
   * Events of the session's parts made while it was built (MCP servers starting) are held until
   * the session exists: call this once it is stored (after `session.created`), or never when
   * creation fails.
   */
  openEvents(): void;
}

/** Opens the workspace and makes the session's live parts; the workspace must exist. */
export async function buildRuntime(record: SessionRecord, processSandbox: SandboxStatus, deps: BuildDeps): Promise<BuiltRuntime> {
  const s = record.session;
  // The session's file tools walk from its root on every call: its descriptor is kept (closed with the runtime).
  const workspace = await Workspace.open(s.workspace, [], { keepRoot: true });
  // Opened by its real path: a link put in the workspace's place (or above it) since creation
  // would lead elsewhere — another tenant's tree — and is refused instead of followed.
  const outside = await workspaceOutsideTenant(deps.config.workspaceRoot, s.tenant, workspace.root);
  if (outside !== null) {
    await workspace.close();
    throw new Error(outside);
  }
  const missingTools: string[] = [];
  const names: string[] = [];
  for (const name of s.tools) {
    const one = deps.catalog.select([name], { processSandbox, webSearch: deps.webSearch });
    if (one.ok) names.push(...one.names);
    else missingTools.push(name);
  }
  const model = resolveModel(record.model ?? undefined, record.modelApiKey, deps.config.model);

  const found = await sessionSkills(deps.config, workspace.root, s.skills);
  const skills: SkillInfo[] = found.skills;
  // Folders of skills used so far are readable by the file tools again.
  for (const name of s.used_skills) openSkillFolder(workspace, skills, name, found.operatorDirs);
  let runtime: SessionRuntime | undefined;
  const settings = new SessionSettings(record, {
    store: deps.store,
    events: deps.events,
    policies: deps.tenants,
    onPermissionChange: deps.onPermissionChange,
  });
  const network = sessionNetwork({
    sessionId: s.id,
    settings: () => settings,
    activeTurn: () => runtime?.activeTurn ?? null,
    ...(deps.operatorSecrets ? { operatorSecrets: deps.operatorSecrets } : {}),
    record,
  });
  const sandbox = sessionSandbox(record, workspace.root, deps, () => runtime?.activeTurn?.id, network);
  const where = { mode: deps.sandbox.mode, usable: processSandbox.usable, detail: processSandbox.detail, session: sandbox };
  // The server's and the session's secrets, in every encoding, out of what its peers answer.
  const redactor = sessionRedactor(record, deps);
  const own = compileSessionHooks(record.hooks ?? undefined, where, deps.egress, 'hooks', deps.audit.evidence, redactor);
  const operator: HookRegistration[] = deps.operatorHooks
    ? compileSessionHooks(deps.operatorHooks, where, deps.egress, 'NORMA_HOOKS_FILE', deps.audit.evidence, redactor).registrations
    : [];
  // The tenant's hooks run after the operator's and before the session's own; a reload of the
  // policy compiles them again (refreshTenantHooks) for the turns that start after it.
  const tenantHooksNow = () => {
    const policy = deps.tenants.policyOf(s.tenant);
    return policy?.hooks
      ? compileSessionHooks(policy.hooks, where, deps.egress, `policy(${s.tenant}).hooks`, deps.audit.evidence, redactor)
      : { registrations: [], problems: [] };
  };
  const tenantHooks = tenantHooksNow();
  const gate = new EventGate(deps.events, s.id);
  // The registry is made by the catalog below; MCP tools join it once their servers listed them.
  let registry: ToolRegistry | undefined;
  const hub = sessionMcpHub(record, sandbox, deps, gate, () => registry, redactor);
  const services: SessionServices = {
    sessionId: s.id,
    workspace,
    sandbox,
    newId: deps.newId,
    clock: deps.clock,
    tasksDir: path.join(deps.config.dataDir, 'tasks', s.id),
    taskEvents: taskEvents(s.id, deps),
    readDenied: (tool, absReal, isDir) => {
      const { rules, policyDeny } = settings.permission();
      const rule =
        readDenyRule(policyDeny ?? [], tool, absReal, isDir, workspace.root) ??
        readDenyRule(rules.deny, tool, absReal, isDir, workspace.root) ??
        readDenyRule(rules.ask, tool, absReal, isDir, workspace.root);
      return rule?.text ?? null;
    },
    fetcher: (ctx, tool) =>
      egressFetcher({
        policy: deps.egress,
        ...(deps.config.web.proxy ? { proxy: deps.config.web.proxy } : {}),
        clock: deps.clock,
        onEvidence: (e) => deps.events.emit(s.id, { type: 'egress.request', turn_id: ctx.turnId, tool_use_id: ctx.toolUseId, tool, ...e }),
      }),
    web: {
      fetchMaxBytes: deps.config.web.fetchMaxBytes,
      fetchTimeoutMs: deps.config.web.fetchTimeoutMs,
      convertTimeoutMs: deps.config.web.convertTimeoutMs,
      search: deps.webSearch.config,
      redact: (text) => redactor.redact(text),
    },
    subagent: (task, ctx) => {
      const turn = runtime?.activeTurn;
      if (!turn?.subagents || turn.id !== ctx.turnId) {
        throw new ToolRefusal('Agent runs only inside prompt turns: a subagent needs the session\'s model.');
      }
      return turn.subagents(ctx.toolUseId, task);
    },
    memoryDir: memoryDir(deps.config.dataDir, s),
    askQuestions: (ask, ctx) => {
      const turn = runtime?.activeTurn;
      if (!turn || turn.id !== ctx.turnId) throw new ToolRefusal('AskUser: the call\'s turn is no longer running.');
      return turn.askQuestions(ask);
    },
    planState: () => ({ mode: settings.session.permission_mode, before: settings.session.mode_before_plan }),
    skills: () => skills,
    mcp: hub,
    deferredTools: () => (registry?.deferredTools() ?? []).map((t) => ({ name: t.name, description: t.prompt, input_schema: t.inputSchema })),
  };
  const tools = deps.catalog.install(names, services);
  registry = tools.registry;
  registry.setDeferred(s.deferred_tools);
  // The tools the client runs: a call pauses the session's turn until the client answers.
  const client = await sessionClientTools(record.clientTools ?? [], deps.mcpSchemas, (call, ctx) => {
    const turn = runtime?.activeTurn;
    if (!turn || turn.id !== ctx.turnId) throw new ToolRefusal(`${call.name}: the call's turn is no longer running.`);
    return turn.askClient(call);
  });
  for (const tool of client.tools) registry.register(tool);
  const mcpProblems: string[] = [];
  const mcpWarnings: string[] = [];
  if (hub) {
    for (const f of await hub.startAll()) (f.source === 'session' ? mcpProblems : mcpWarnings).push(`mcp_servers.${f.server}: ${f.message}`);
    for (const name of hub.names()) {
      syncMcpTools(registry, hub, name);
      for (const p of hub.get(name)!.problems) mcpWarnings.push(`mcp_servers.${name}: ${p}`);
    }
  }

  // A rewind a crash interrupted is finished before anything else touches the workspace.
  const checkpoints = s.checkpoints ? await openCheckpoints(record, workspace.root, deps, gate) : null;

  runtime = {
    id: s.id,
    checkpoints,
    settings,
    registry: tools.registry,
    workspace,
    sandbox,
    hooks: deps.hooks.with([...operator, ...tenantHooks.registrations, ...own.registrations]),
    refreshTenantHooks: () => {
      const next = tenantHooksNow();
      // A policy that cannot be compiled (the file was checked, so: the sandbox changed) keeps the hooks in force.
      if (next.problems.length === 0) runtime!.hooks = deps.hooks.with([...operator, ...next.registrations, ...own.registrations]);
      return next.problems;
    },
    model: model.ok ? model.model : null,
    redactor,
    closeTools: async () => {
      await tools.close();
      await hub?.close();
    },
    mcp: hub,
    isUnlocked: (name) => matchesAny(settings.session.unlocked_tools, name),
    activeTurn: null,
    skills,
    operatorSkillDirs: found.operatorDirs,
  };
  return {
    runtime,
    missingTools,
    hookProblems: [...tenantHooks.problems, ...own.problems],
    modelProblems: model.ok ? [] : model.problems,
    skillProblems: found.errors,
    mcpProblems,
    mcpWarnings,
    clientToolProblems: client.problems,
    openEvents: () => gate.open(),
  };
}

/** A session's process sandbox: its processes' home, /tmp, limits and network. */
function sessionSandbox(record: SessionRecord, workspace: string, deps: BuildDeps, turnId: () => string | undefined, network: SessionNetwork): SessionSandbox {
  const { config, events } = deps;
  const s = record.session;
  return new SessionSandbox(deps.sandbox, {
    sessionId: s.id,
    workspace,
    network: s.sandbox_network,
    limits: s.limits,
    stateDir: path.join(config.dataDir, 'sandbox', s.id),
    stateRoot: config.dataDir,
    egress: deps.egress,
    ...(config.web.proxy ? { upstreamProxy: config.web.proxy } : {}),
    ownAddresses: deps.ownAddresses,
    clock: deps.clock,
    onEgress: (e) => {
      const turn = e.turn_id ?? turnId();
      events.emit(s.id, { type: 'egress.request', ...(turn ? { turn_id: turn } : {}), via: 'sandbox_proxy', ...e });
    },
    scope: network.scope,
    secrets: () => network.secrets(),
    ...(deps.upstreamCa ? { upstreamCa: () => deps.upstreamCa } : {}),
  });
}

/** Background tasks announce themselves as events of the session. */
function taskEvents(sessionId: string, deps: BuildDeps): TaskEvents {
  const { events } = deps;
  return {
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
  };
}
