// The catalog of the 30 static tool names (SPEC §6): each with its group, security metadata,
// install condition, and — where this build has it — the capability that implements it. Asking
// for a tool that cannot be installed is reported at session creation, never silently dropped
// (SPEC §9.10). The composition root makes one catalog (Grep's engine and Bash's analysis cache
// are chosen there); a session installs the capabilities of the tools it names.
import { agentCapability } from '../capabilities/agent/index.js';
import { deferredCapability } from '../capabilities/deferred/index.js';
import { mcpCapability } from '../capabilities/mcp/index.js';
import { filesCapability } from '../capabilities/files/index.js';
import { interactionCapability } from '../capabilities/interaction/index.js';
import { memoryCapability } from '../capabilities/memory/index.js';
import { planCapability } from '../capabilities/plan/index.js';
import { skillsCapability } from '../capabilities/skills/index.js';
import { ptyCapability } from '../capabilities/pty/index.js';
import type { BashToolOptions } from '../capabilities/shell/bash.js';
import { shellCapability } from '../capabilities/shell/index.js';
import { webCapability } from '../capabilities/web/index.js';
import type { Capability, SessionServices, ToolGroup } from './capability.js';
import type { HtmlConverter } from '../web/html-convert.js';
import { ToolRegistry, type ExposedTool } from './registry.js';
import type { CoreTool, ToolFactory, ToolSpec } from './tool.js';

export type { ToolGroup } from './capability.js';

export interface CatalogEntry {
  name: string;
  group: ToolGroup;
  readOnly: boolean;
  concurrencySafe: boolean;
  approval: boolean;
  /** In the default set installed when a session names no `tools`. */
  defaultInstalled: boolean;
}

const entry = (
  name: string,
  group: ToolGroup,
  meta: { readOnly: boolean; concurrencySafe: boolean; approval: boolean; defaultInstalled?: boolean },
): CatalogEntry => ({ name, group, defaultInstalled: false, ...meta });

const RO = { readOnly: true, concurrencySafe: true, approval: false };
const MUT = { readOnly: false, concurrencySafe: false, approval: true };

export const CATALOG: readonly CatalogEntry[] = [
  entry('Read', 'file', { ...RO, defaultInstalled: true }),
  entry('Write', 'file', { ...MUT, defaultInstalled: true }),
  entry('Edit', 'file', { ...MUT, defaultInstalled: true }),
  entry('MultiEdit', 'file', { ...MUT, defaultInstalled: true }),
  entry('LS', 'file', { ...RO, defaultInstalled: true }),
  entry('Glob', 'file', { ...RO, defaultInstalled: true }),
  entry('Grep', 'file', { ...RO, defaultInstalled: true }),
  entry('Bash', 'shell', { ...MUT, defaultInstalled: true }),
  entry('TaskOutput', 'background', { ...RO, defaultInstalled: true }),
  entry('TaskStop', 'background', { readOnly: false, concurrencySafe: false, approval: false, defaultInstalled: true }),
  entry('TaskList', 'background', { ...RO, defaultInstalled: true }),
  entry('Monitor', 'background', { ...RO, defaultInstalled: true }),
  // The PTY tools are installed when a session names them ("host opts in", SPEC §6).
  entry('ShellOpen', 'pty', { readOnly: false, concurrencySafe: false, approval: false }),
  entry('ShellWrite', 'pty', MUT),
  entry('ShellRead', 'pty', RO),
  entry('ShellResize', 'pty', { readOnly: false, concurrencySafe: false, approval: false }),
  entry('ShellClose', 'pty', { readOnly: false, concurrencySafe: false, approval: false }),
  // Opt-in. Outbound requests are effects (a URL or query carries data out): not read-only.
  entry('WebFetch', 'web', { readOnly: false, concurrencySafe: true, approval: true }),
  entry('WebSearch', 'web', { readOnly: false, concurrencySafe: true, approval: true }),
  // Host interaction, opt-in. TodoWrite changes only the session's own list (allowed while
  // planning); AskUser and ExitPlanMode need a person (refused at once in dontAsk and auto);
  // AskUser waits alongside the other read-only calls of its group.
  entry('TodoWrite', 'interaction', { readOnly: true, concurrencySafe: false, approval: false }),
  entry('AskUser', 'interaction', { readOnly: true, concurrencySafe: true, approval: false }),
  // Plan mode, opt-in. ExitPlanMode always asks a person, whatever the mode and the allow rules.
  entry('EnterPlanMode', 'plan', { readOnly: true, concurrencySafe: false, approval: false }),
  entry('ExitPlanMode', 'plan', { readOnly: false, concurrencySafe: false, approval: true }),
  // Opt-in. `view` is read-only; every other command changes the store and asks like Write (rules `Memory(/memories/…)`).
  entry('Memory', 'instructions', MUT),
  // Opt-in. Invoking a skill only reads its instructions; its effect (folder readable, unlocks) is session state.
  entry('Skill', 'instructions', { readOnly: true, concurrencySafe: false, approval: false }),
  // Installed with `deferred_tools`. SearchExtraTools only reads the tool list (its unlocks are
  // session state); ExecuteExtraTool does nothing itself: the inner call is judged under its own name.
  entry('SearchExtraTools', 'deferred', RO),
  entry('ExecuteExtraTool', 'deferred', { readOnly: true, concurrencySafe: false, approval: false }),
  // Opt-in; needs a session model (checked at session creation).
  entry('Agent', 'subagent', { readOnly: false, concurrencySafe: false, approval: false }),
  // Installed by default when the session has MCP servers. They only ask a server for data.
  entry('ListMcpResources', 'mcp', RO),
  entry('ReadMcpResource', 'mcp', RO),
];

const BY_NAME = new Map(CATALOG.map((e) => [e.name, e]));

export function catalogEntry(name: string): CatalogEntry | undefined {
  return BY_NAME.get(name);
}

export type ToolSelection = { ok: true; names: string[]; warnings: string[] } | { ok: false; problems: string[] };

/** What the process sandbox allows: shell tools are installed only when it is usable. */
export interface SelectionEnvironment {
  processSandbox: { usable: boolean; detail: string };
  /** WebSearch is installable only with a usable backend; absent: unknown (after a restart, checked again). */
  webSearch?: { usable: boolean; detail: string };
}

const NEEDS_PROCESS_SANDBOX: ReadonlySet<ToolGroup> = new Set(['shell', 'background', 'pty']);

export interface CatalogOptions {
  /** Grep's ripgrep (null: the built-in search). */
  rgPath: string | null;
  bash?: BashToolOptions;
  /** The server's HTML worker (WebFetch's conversion, WebSearch's result pages). */
  html: HtmlConverter;
}

/** A session's installed tools, and how to stop what their groups keep running. */
export interface InstalledTools {
  registry: ToolRegistry;
  close(): Promise<void>;
}

export class ToolCatalog {
  private readonly implementations = new Map<string, { capability: Capability<unknown>; factory: ToolFactory<unknown> }>();

  constructor(readonly options: CatalogOptions) {
    const capabilities = [
      filesCapability({ rgPath: options.rgPath }),
      shellCapability(options.bash),
      ptyCapability,
      webCapability(options.html),
      interactionCapability,
      planCapability,
      memoryCapability,
      skillsCapability,
      deferredCapability,
      mcpCapability,
      agentCapability,
    ] as Capability<unknown>[];
    for (const capability of capabilities) {
      for (const factory of capability.tools) this.implementations.set(factory.name, { capability, factory });
    }
    for (const e of CATALOG) {
      if (!this.implementations.has(e.name)) throw new Error(`catalog: ${e.name} has no implementation`);
    }
  }

  /** Every implemented tool's spec (to compile validators at start-up, to describe a closed session's tools). */
  specs(): ToolSpec[] {
    return [...this.implementations.values()].map((i) => i.factory);
  }

  defaultNames(): string[] {
    return CATALOG.filter((e) => e.defaultInstalled).map((e) => e.name);
  }

  /**
   * Resolves the names a session asked for; every name that cannot be installed is a problem.
   * From the default set (no names given) a tool that cannot be installed is left out with a
   * warning the session reports — never silently.
   */
  select(names: readonly string[] | undefined, env: SelectionEnvironment): ToolSelection {
    const explicit = names !== undefined;
    const wanted = names ?? this.defaultNames();
    const problems: string[] = [];
    const warnings: string[] = [];
    const chosen: string[] = [];
    const seen = new Set<string>();
    for (const [i, name] of wanted.entries()) {
      if (seen.has(name)) {
        problems.push(`tools[${i}]: "${name}" is listed twice`);
        continue;
      }
      seen.add(name);
      const e = BY_NAME.get(name);
      if (!e) {
        problems.push(`tools[${i}]: unknown tool "${name}" (known: ${CATALOG.map((c) => c.name).join(', ')})`);
      } else if (name === 'WebSearch' && env.webSearch && !env.webSearch.usable) {
        problems.push(`tools[${i}]: "WebSearch" cannot be installed: ${env.webSearch.detail}`);
      } else if (NEEDS_PROCESS_SANDBOX.has(e.group) && !env.processSandbox.usable) {
        const why = `"${name}" cannot be installed: the process sandbox is unusable (${env.processSandbox.detail})`;
        if (explicit) problems.push(`tools[${i}]: ${why}`);
        else warnings.push(`${why}; it was left out of the default tools`);
      } else {
        chosen.push(name);
      }
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, names: chosen, warnings };
  }

  /** Installs the capabilities the named tools belong to, each once, and binds the tools to them. */
  install(names: readonly string[], services: SessionServices): InstalledTools {
    const registry = new ToolRegistry();
    const installed = new Map<Capability<unknown>, { deps: unknown; close?: () => Promise<void> | void }>();
    for (const name of names) {
      const impl = this.implementations.get(name);
      if (!impl) continue;
      let group = installed.get(impl.capability);
      if (!group) {
        group = impl.capability.install(services);
        installed.set(impl.capability, group);
      }
      registry.register(impl.factory.bind(group.deps));
    }
    return {
      registry,
      close: async () => {
        await Promise.all([...installed.values()].map((g) => g.close?.()));
      },
    };
  }

  /** The exposed list of tools by name, without a session (a closed session describes what it had). */
  describe(names: readonly string[]): ExposedTool[] {
    return names.flatMap((n) => {
      const f = this.implementations.get(n)?.factory;
      return f && !f.deferred ? [{ name: f.name, description: f.prompt, input_schema: f.inputSchema }] : [];
    });
  }
}

/** A tool for one call outside a session (tests, benches): bound to the deps given. */
export function bound<D>(factory: ToolFactory<D>, deps: D): CoreTool {
  return factory.bind(deps);
}
