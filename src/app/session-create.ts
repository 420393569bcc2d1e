// What a new session will be, checked before anything is made: every misconfiguration is a
// problem in one 400 answer (SPEC §9.10), never a silently different session.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_COMPACTION_THRESHOLD, type Budget, type Session, type SessionCreate } from '../contract/schemas.js';
import { emptySessionUsage } from '../session/spending.js';
import { compileSessionHooks } from '../hooks/config.js';
import { publicModel, resolveModel, type ResolvedModel } from '../model/index.js';
import { parseRules } from '../permission/rules.js';
import { DEFAULT_OUTPUT_CAP_CHARS } from '../pipeline/output-cap.js';
import type { ResourceLimits } from '../sandbox/limits.js';
import type { SessionRecord } from '../store/store.js';
import { sessionSkills } from '../session/skills.js';
import type { Parts } from './parts.js';
import { checkMcpServers } from '../mcp/check.js';
import { publicConfig } from '../mcp/hub.js';
import { namePattern } from '../tools/name-pattern.js';
import { DEFAULT_TENANT, clampMode } from '../contract/tenant.js';
import { TENANTS_DIR } from '../session/data-dirs.js';
import { bindSecrets, checkSecrets } from '../sandbox/net/secrets.js';
import { clientToolProblems } from '../session/client-tools.js';

/** Tools a session gets with `deferred_tools`, and (unless it names its tools) with MCP servers. */
const DEFERRED_TOOLS = ['SearchExtraTools', 'ExecuteExtraTool'];
const MCP_RESOURCE_TOOLS = ['ListMcpResources', 'ReadMcpResource'];

export type SessionPlan =
  | { ok: false; problems: string[] }
  | {
      ok: true;
      /** The record to store, but for its workspace when the server makes one (`workspace: null`). */
      record: SessionRecord;
      workspace: string | null;
    };

export async function planSession(parts: Parts, id: string, body: SessionCreate, tenant: string): Promise<SessionPlan> {
  const { config, sandbox: host } = parts.deps;
  const problems: string[] = [];
  const policy = parts.deps.tenants.policyOf(tenant);

  const sandbox = await parts.deps.sandboxStatus();
  const operatorMcp = parts.deps.operatorMcp ?? {};
  const ownMcp = body.mcp_servers ?? {};
  const hasMcp = Object.keys(operatorMcp).length + Object.keys(ownMcp).length > 0;
  const deferred = body.deferred_tools ?? [];
  const selection = parts.deps.catalog.select(body.tools, { processSandbox: sandbox, webSearch: parts.webSearch });
  for (const name of Object.keys(ownMcp)) {
    if (name in operatorMcp) problems.push(`mcp_servers.${name}: the operator's servers already have this name; choose another`);
  }
  problems.push(
    ...checkMcpServers(ownMcp, {
      field: 'mcp_servers',
      roots: config.mcpReadOnlyRoots,
      dataDir: config.dataDir,
      workspaceRoot: config.workspaceRoot,
      processes: config.sandbox === 'off' ? { usable: true, detail: 'off' } : sandbox,
    }),
  );
  for (const [i, p] of deferred.entries()) {
    if (namePattern(p) === null) problems.push(`deferred_tools[${i}]: ${JSON.stringify(p)} is not a tool name or * pattern`);
    else if (DEFERRED_TOOLS.some((t) => namePattern(p)!(t))) problems.push(`deferred_tools[${i}]: ${JSON.stringify(p)} would defer ${DEFERRED_TOOLS.join(' or ')}, which find and run the deferred tools`);
  }
  if (!selection.ok) problems.push(...selection.problems);
  problems.push(...parseRules('allowed_tools', body.allowed_tools ?? []).problems);
  problems.push(...parseRules('disallowed_tools', body.disallowed_tools ?? []).problems);
  problems.push(...parseRules('ask_rules', body.ask_rules ?? []).problems);
  const hookEvents = Object.keys(body.hooks ?? {}).filter((e) => (body.hooks as Record<string, unknown[]>)[e]!.length > 0);
  let compiledEvents: Session['hook_events'] = [];
  if (hookEvents.length > 0) {
    if (!config.sessionHooks) problems.push('hooks: per-session hooks are disabled by the operator (NORMA_SESSION_HOOKS=off)');
    else {
      const compiled = compileSessionHooks(body.hooks, { mode: host.mode, usable: sandbox.usable, detail: sandbox.detail }, parts.egress);
      problems.push(...compiled.problems);
      compiledEvents = compiled.events;
    }
  }
  const limits = limitsFor(parts, body.limits, problems);
  const network = body.sandbox_network ?? false;
  if (network !== false && host.mode === 'bwrap' && !host.socatPath) {
    problems.push('sandbox_network: the sandbox\'s network goes through an egress proxy bridged by socat, which is not installed on the server (Debian package socat)');
  }
  if ((network === 'rules' || network === 'ask') && host.mode === 'off') {
    problems.push(`sandbox_network: "${network}" is enforced by the process sandbox's proxy; with NORMA_SANDBOX=off commands have the host's network and no scope can hold`);
  }
  problems.push(...checkSecrets('secrets', body.secrets));
  const hasOwnSecrets = Object.keys(body.secrets ?? {}).length > 0;
  if (hasOwnSecrets && host.mode === 'off') problems.push('secrets: with NORMA_SANDBOX=off commands run as the server and could read any value; secrets need the process sandbox');
  const bound = bindSecrets(id, [
    { source: 'operator', secrets: parts.deps.operatorSecrets },
    { source: 'tenant', secrets: policy?.source.secrets },
    { source: 'session', secrets: body.secrets },
  ]);
  problems.push(...bound.problems);
  const resolved = resolveModel(body.model, null, config.model);
  if (!resolved.ok) problems.push(...resolved.problems);
  else if (!resolved.model && body.tools?.includes('Agent')) {
    problems.push('tools: "Agent" needs a model to run subagents: give `model`, or configure NORMA_MODEL_PROVIDER on the server');
  }
  if (resolved.ok) problems.push(...budgetProblems(parts, resolved.model, body.budget, policy?.source.max_usd_per_day));
  let workspace: string | null = null;
  if (body.workspace !== undefined) {
    const checked = await checkWorkspace(await parts.tenantWorkspaceRoot(tenant), body.workspace, tenant === DEFAULT_TENANT);
    if (typeof checked === 'string') workspace = checked;
    else problems.push(checked.problem);
  }
  const skills = await sessionSkills(config, workspace, body.skills);
  problems.push(...skills.errors);
  const clientTools = body.client_tools ?? [];
  problems.push(...(await clientToolProblems(clientTools, parts.build.mcpSchemas)));
  if (problems.length > 0 || !selection.ok || !resolved.ok) return { ok: false, problems };

  const tools = withImpliedTools(selection.names, body.tools !== undefined, deferred.length > 0, hasMcp);
  const warnings: string[] = [...selection.warnings, ...skills.warnings];
  // MCP tools are known only once their servers listed them: a pattern naming a server the session
  // does not have is said; one naming a server's tools is taken as it is.
  const servers = new Set([...Object.keys(operatorMcp), ...Object.keys(ownMcp)]);
  for (const p of deferred) {
    const server = /^mcp__([A-Za-z0-9_-]+?)(?:__|$)/.exec(p)?.[1];
    if (p.startsWith('mcp__')) {
      if (server !== undefined && !server.includes('*') && !servers.has(server)) warnings.push(`deferred_tools: ${JSON.stringify(p)} names MCP server "${server}", which this session does not have`);
    } else if (![...tools, ...clientTools.map((t) => t.name)].some((t) => namePattern(p)?.(t))) warnings.push(`deferred_tools: ${JSON.stringify(p)} names no tool of this session`);
  }
  if (config.sandbox === 'off') {
    warnings.push('the process sandbox is off (NORMA_SANDBOX=off): shell tools and command hooks run UNSANDBOXED');
  }
  if (hasOwnSecrets && network === false) warnings.push('secrets: the session has no network (sandbox_network: false); only MCP servers and hooks with `network` can use them');
  // A rule naming a tool the session does not have is legal (MCP tools come and go) but is
  // most often a typo: say so instead of letting it match nothing silently.
  const installed = new Set([...tools, ...clientTools.map((t) => t.name)]);
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
    name: body.name ?? null,
    labels: body.labels ?? {},
    tenant,
    policy: policy?.public ?? null,
    workspace: workspace ?? '',
    workspace_owned: workspace === null,
    // Without a mode asked for, the default one, or the tenant's maximum when that is stricter.
    permission_mode: body.permission_mode ?? clampMode('default', policy?.maxMode),
    allowed_tools: body.allowed_tools ?? [],
    disallowed_tools: body.disallowed_tools ?? [],
    ask_rules: body.ask_rules ?? [],
    rules: [],
    tools,
    output_cap_chars: body.output_cap_chars ?? DEFAULT_OUTPUT_CAP_CHARS,
    permission_timeout_s: body.permission_timeout_s ?? null,
    question_timeout_s: body.question_timeout_s ?? null,
    mode_before_plan: null,
    memory_store: body.memory_store ?? null,
    skills: skills.skills.map((k) => k.name),
    used_skills: [],
    unlocked_tools: [],
    deferred_tools: deferred,
    client_tools: clientTools.map((t) => t.name),
    mcp_servers: Object.fromEntries([
      ...Object.entries(operatorMcp).map(([n, c]) => [n, publicConfig(c, 'operator')] as const),
      ...Object.entries(ownMcp).map(([n, c]) => [n, publicConfig(c, 'session')] as const),
    ]),
    instructions: [],
    sandbox: config.sandbox,
    hook_events: compiledEvents,
    model: resolved.model ? publicModel(resolved.model) : null,
    system_prompt: body.system_prompt ?? null,
    sandbox_network: network,
    secret_names: bound.bindings.map((b) => b.name),
    checkpoints: body.checkpoints ?? config.checkpoints.enabled,
    budget: body.budget ?? null,
    usage: emptySessionUsage(),
    compaction: { auto: body.compaction?.auto ?? true, threshold: body.compaction?.threshold ?? DEFAULT_COMPACTION_THRESHOLD },
    forked_from: null,
    limits: { enforcement: host.mode === 'off' ? 'none' : host.limits.enforcement, ...limits },
    active_turn_id: null,
    warnings,
    created_at: parts.deps.clock().toISOString(),
    closed_at: null,
  };
  let model: SessionRecord['model'] = null;
  if (body.model) {
    const { api_key: _key, ...rest } = body.model;
    model = rest;
  }
  return {
    ok: true,
    workspace,
    record: {
      session,
      hooks: compiledEvents.length > 0 ? body.hooks! : null,
      modelApiKey: body.model?.api_key ?? null,
      model,
      mcpServers: Object.keys(ownMcp).length > 0 ? ownMcp : null,
      secrets: hasOwnSecrets ? body.secrets! : null,
      clientTools: clientTools.length > 0 ? clientTools : null,
    },
  };
}

/** The limits a session asks for, each at most the operator's; a higher one is a problem. */
function limitsFor(parts: Parts, asked: Partial<ResourceLimits> | undefined, problems: string[]): ResourceLimits {
  const max = parts.deps.config.sandboxLimits;
  const out: ResourceLimits = { ...max };
  for (const [k, v] of Object.entries(asked ?? {}) as [keyof ResourceLimits, number][]) {
    if (v > max[k]) problems.push(`limits.${k}: ${v} is above the operator's limit of ${max[k]} (a session may only lower limits)`);
    else out[k] = v;
  }
  return out;
}

/**
 * A client-chosen workspace must be an existing directory under its tenant's part of
 * NORMA_WORKSPACE_ROOT (`root`; for the default tenant the whole root but `tenants/`).
 */
async function checkWorkspace(root: string, requested: string, defaultTenant: boolean): Promise<string | { problem: string }> {
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
  if (defaultTenant && top === TENANTS_DIR) {
    return { problem: `workspace: ${requested} is inside ${path.join(root, TENANTS_DIR)}, where other tenants' workspaces lie` };
  }
  if (top.startsWith('ses_')) {
    return { problem: `workspace: ${requested} is (or is inside) ${top}, a workspace the server made for a session; it belongs to that session only` };
  }
  if (!(await fs.stat(real)).isDirectory()) return { problem: `workspace: ${requested} is not a directory` };
  return real;
}

/**
 * The tools a session asked for, with those its options imply: SearchExtraTools and
 * ExecuteExtraTool with `deferred_tools` (without them deferred tools could not be reached), and
 * the MCP resource tools with MCP servers when the session takes the default set.
 */
function withImpliedTools(names: string[], explicit: boolean, deferred: boolean, mcp: boolean): string[] {
  const out = [...names];
  const add = (t: string) => {
    if (!out.includes(t)) out.push(t);
  };
  if (deferred) DEFERRED_TOOLS.forEach(add);
  if (mcp && !explicit) MCP_RESOURCE_TOOLS.forEach(add);
  return out;
}

/** A budget in dollars, the session's or its tenant's, needs the model's price: without one it could not be kept. */
export function budgetProblems(parts: Parts, model: ResolvedModel | null, budget: Budget | undefined, tenantDaily: number | undefined): string[] {
  if (!model || parts.prices.lookup(model.provider, model.model)) return [];
  const which = `${model.provider} model ${JSON.stringify(model.model)} has no known price (the operator can give one in NORMA_MODEL_PRICES)`;
  const problems: string[] = [];
  if (budget?.max_usd !== undefined) problems.push(`budget.max_usd: ${which}; use max_tokens instead`);
  if (tenantDaily !== undefined) problems.push(`model: the tenant's max_usd_per_day bounds what its sessions' model calls cost, and ${which}`);
  return problems;
}
