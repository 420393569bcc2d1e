// The live parts of one session (what does not survive the process): its tools (with the state
// their groups keep), workspace, sandbox, hooks, model, and the turn it runs. Built from the
// stored record by build.ts, for a new session and after a restart alike.
import type { Spending } from './spending.js';
import type { HookRegistry } from '../hooks/registry.js';
import type { McpHub } from '../mcp/hub.js';
import type { ResolvedModel } from '../model/index.js';
import type { Redactor } from '../redact.js';
import type { ModelProvider } from '../model/provider.js';
import type { Workspace } from '../sandbox/paths.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { SkillInfo } from '../tools/capability.js';
import type { ToolRegistry } from '../tools/registry.js';
import { DomainError } from '../errors.js';
import type { SessionSettings } from './settings.js';
import type { TurnRunner } from './turn.js';
import type { SessionCheckpoints } from '../checkpoints/session.js';

export interface SessionRuntime {
  readonly id: string;
  /** Mode, rules and the rest of the stored record, as in force. */
  readonly settings: SessionSettings;
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
  /** Where the session's processes run (its home, /tmp, cgroup and network proxy). */
  readonly sandbox: SessionSandbox;
  /** The server's and operator's hooks, then the tenant's, then the session's own (a turn takes them as it starts). */
  hooks: HookRegistry;
  /**
   * Compiles the tenant's hooks again from its policy as in force (after a reload) and puts them
   * in `hooks` for the turns that start from now on; returns what could not be compiled.
   */
  refreshTenantHooks(): string[];
  /** The model prompt turns talk to (null: the session has none). */
  readonly model: ResolvedModel | null;
  /** The server's and the session's secrets (sessionRedactor): out of what model providers answer. */
  readonly redactor: Redactor;
  /** Stops what the session's tool groups keep running (background tasks, shells). */
  readonly closeTools: () => Promise<void>;
  activeTurn: TurnRunner | null;
  /** The skills the session may use, as loaded when its runtime was made. */
  readonly skills: readonly SkillInfo[];
  /** Real paths of the operator's skill directories: where a used skill's folder may be opened to read (openSkillFolder). */
  readonly operatorSkillDirs: readonly string[];
  /** The session's MCP servers (null: none). */
  readonly mcp: McpHub | null;
  /** Whether a deferred tool was unlocked (its name matches an entry of `unlocked_tools`). */
  isUnlocked(name: string): boolean;
  /** The session's checkpoints (null: the session takes none). */
  readonly checkpoints: SessionCheckpoints | null;
  /** Made on the first prompt turn and kept (with their connections) until the session closes. */
  providers?: { main: ModelProvider; subagent: ModelProvider };
  /** A compaction asked for between turns is under way (a second one, or a turn, waits for it). */
  compacting?: boolean;
  /** What its model calls cost, against its budgets (made with its first prompt turn). */
  spending?: Spending;
}

/** The runtimes of this process's live sessions. */
export class RuntimeTable {
  private readonly byId = new Map<string, SessionRuntime>();
  private readonly byTenant = new Map<string, Set<SessionRuntime>>();

  get(id: string): SessionRuntime | undefined {
    return this.byId.get(id);
  }

  /** The runtime of an active session; 409 when the session is closed. */
  require(id: string): SessionRuntime {
    const rt = this.byId.get(id);
    if (!rt) throw new DomainError('conflict', `session ${id} is closed`);
    return rt;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  add(rt: SessionRuntime): void {
    this.delete(rt.id);
    this.byId.set(rt.id, rt);
    const tenant = rt.settings.session.tenant;
    let set = this.byTenant.get(tenant);
    if (!set) this.byTenant.set(tenant, (set = new Set()));
    set.add(rt);
  }

  delete(id: string): SessionRuntime | undefined {
    const rt = this.byId.get(id);
    if (!rt) return undefined;
    this.byId.delete(id);
    const tenant = rt.settings.session.tenant;
    const set = this.byTenant.get(tenant);
    set?.delete(rt);
    if (set?.size === 0) this.byTenant.delete(tenant);
    return rt;
  }

  /** The tenant's live (active) sessions in this process. */
  countOf(tenant: string): number {
    return this.byTenant.get(tenant)?.size ?? 0;
  }

  /** The tenant's unfinished turns (running, or waiting for a person) in this process. */
  turnsOf(tenant: string): number {
    let n = 0;
    for (const rt of this.byTenant.get(tenant) ?? []) if (rt.activeTurn) n++;
    return n;
  }

  all(): SessionRuntime[] {
    return [...this.byId.values()];
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }
}

/** Stops what a runtime keeps running (PTYs, tasks, model connections); the sandbox closes later. */
export async function stopRuntimeParts(rt: SessionRuntime): Promise<void> {
  await rt.closeTools();
  await rt.checkpoints?.close().catch(() => undefined);
  const p = rt.providers;
  rt.providers = undefined;
  if (p) await Promise.all([p.main.close?.(), p.subagent.close?.()]);
  await rt.workspace.close();
}
