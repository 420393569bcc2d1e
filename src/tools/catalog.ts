// The catalog of the 30 static tool names (SPEC §6): each with its group, security metadata,
// install condition, and — where this build has it — its implementation. Asking for a tool
// that cannot be installed is reported at session creation, never silently dropped (SPEC §9.10).
import type { CoreTool } from './tool.js';
import { bashTool } from './builtin/bash.js';
import { editTool } from './builtin/edit.js';
import { globTool } from './builtin/glob.js';
import { grepTool } from './builtin/grep.js';
import { lsTool } from './builtin/ls.js';
import { monitorTool } from './builtin/monitor.js';
import { shellCloseTool } from './builtin/shell-close.js';
import { shellOpenTool } from './builtin/shell-open.js';
import { shellReadTool } from './builtin/shell-read.js';
import { shellResizeTool } from './builtin/shell-resize.js';
import { shellWriteTool } from './builtin/shell-write.js';
import { taskListTool } from './builtin/task-list.js';
import { taskOutputTool } from './builtin/task-output.js';
import { taskStopTool } from './builtin/task-stop.js';
import { multiEditTool } from './builtin/multi-edit.js';
import { readTool } from './builtin/read.js';
import { writeTool } from './builtin/write.js';
import { agentTool } from './builtin/agent.js';
import { webFetchTool } from './builtin/web-fetch.js';
import { webSearchTool } from './builtin/web-search.js';

export type ToolGroup =
  | 'file'
  | 'shell'
  | 'background'
  | 'pty'
  | 'web'
  | 'interaction'
  | 'plan'
  | 'instructions'
  | 'deferred'
  | 'subagent'
  | 'mcp';

export interface CatalogEntry {
  name: string;
  group: ToolGroup;
  readOnly: boolean;
  concurrencySafe: boolean;
  approval: boolean;
  /** In the default set installed when a session names no `tools`. */
  defaultInstalled: boolean;
  /** The implementation, or why this server cannot install the tool. */
  tool: CoreTool | { unavailable: string };
}

const NOT_YET = 'not implemented in this server version';

const entry = (
  name: string,
  group: ToolGroup,
  meta: { readOnly: boolean; concurrencySafe: boolean; approval: boolean; defaultInstalled?: boolean },
  tool: CoreTool | { unavailable: string } = { unavailable: NOT_YET },
): CatalogEntry => ({ name, group, defaultInstalled: false, ...meta, tool });

const RO = { readOnly: true, concurrencySafe: true, approval: false };
const MUT = { readOnly: false, concurrencySafe: false, approval: true };

export const CATALOG: readonly CatalogEntry[] = [
  entry('Read', 'file', { ...RO, defaultInstalled: true }, readTool),
  entry('Write', 'file', { ...MUT, defaultInstalled: true }, writeTool),
  entry('Edit', 'file', { ...MUT, defaultInstalled: true }, editTool),
  entry('MultiEdit', 'file', { ...MUT, defaultInstalled: true }, multiEditTool),
  entry('LS', 'file', { ...RO, defaultInstalled: true }, lsTool),
  entry('Glob', 'file', { ...RO, defaultInstalled: true }, globTool),
  entry('Grep', 'file', { ...RO, defaultInstalled: true }, grepTool),
  entry('Bash', 'shell', { ...MUT, defaultInstalled: true }, bashTool),
  entry('TaskOutput', 'background', { ...RO, defaultInstalled: true }, taskOutputTool),
  entry('TaskStop', 'background', { readOnly: false, concurrencySafe: false, approval: false, defaultInstalled: true }, taskStopTool),
  entry('TaskList', 'background', { ...RO, defaultInstalled: true }, taskListTool),
  entry('Monitor', 'background', { ...RO, defaultInstalled: true }, monitorTool),
  // The PTY tools are installed when a session names them ("host opts in", SPEC §6).
  entry('ShellOpen', 'pty', { readOnly: false, concurrencySafe: false, approval: false }, shellOpenTool),
  entry('ShellWrite', 'pty', MUT, shellWriteTool),
  entry('ShellRead', 'pty', RO, shellReadTool),
  entry('ShellResize', 'pty', { readOnly: false, concurrencySafe: false, approval: false }, shellResizeTool),
  entry('ShellClose', 'pty', { readOnly: false, concurrencySafe: false, approval: false }, shellCloseTool),
  // Opt-in. Outbound requests are effects (a URL or query carries data out): not read-only.
  entry('WebFetch', 'web', { readOnly: false, concurrencySafe: true, approval: true }, webFetchTool),
  entry('WebSearch', 'web', { readOnly: false, concurrencySafe: true, approval: true }, webSearchTool),
  entry('TodoWrite', 'interaction', { readOnly: false, concurrencySafe: false, approval: false }),
  entry('AskUser', 'interaction', { readOnly: true, concurrencySafe: false, approval: false }),
  entry('EnterPlanMode', 'plan', { readOnly: true, concurrencySafe: false, approval: false }),
  entry('ExitPlanMode', 'plan', { readOnly: false, concurrencySafe: false, approval: true }),
  entry('Memory', 'instructions', MUT),
  entry('Skill', 'instructions', { readOnly: true, concurrencySafe: false, approval: false }),
  entry('SearchExtraTools', 'deferred', RO),
  entry('ExecuteExtraTool', 'deferred', MUT),
  // Opt-in; needs a session model (checked at session creation).
  entry('Agent', 'subagent', { readOnly: false, concurrencySafe: false, approval: false }, agentTool),
  entry('ListMcpResources', 'mcp', RO),
  entry('ReadMcpResource', 'mcp', RO),
];

const BY_NAME = new Map(CATALOG.map((e) => [e.name, e]));

export function catalogEntry(name: string): CatalogEntry | undefined {
  return BY_NAME.get(name);
}

export function defaultToolNames(): string[] {
  return CATALOG.filter((e) => e.defaultInstalled && 'name' in e.tool).map((e) => e.name);
}

/** Every implemented tool (for compiling validators at start-up). */
export function implementedTools(): CoreTool[] {
  return CATALOG.flatMap((e) => ('unavailable' in e.tool ? [] : [e.tool]));
}

export type ToolSelection = { ok: true; tools: CoreTool[]; warnings: string[] } | { ok: false; problems: string[] };

/** What the process sandbox allows: shell tools are installed only when it is usable. */
export interface SelectionEnvironment {
  processSandbox: { usable: boolean; detail: string };
  /** WebSearch is installable only with a usable backend; absent: unknown (after a restart, checked again). */
  webSearch?: { usable: boolean; detail: string };
}

const NEEDS_PROCESS_SANDBOX: ReadonlySet<ToolGroup> = new Set(['shell', 'background', 'pty']);

/**
 * Resolves the names a session asked for; every name that cannot be installed is a problem.
 * From the default set (no names given) a tool that cannot be installed is left out with a
 * warning the session reports — never silently.
 */
export function selectTools(names: readonly string[] | undefined, env: SelectionEnvironment): ToolSelection {
  const explicit = names !== undefined;
  const wanted = names ?? defaultToolNames();
  const problems: string[] = [];
  const warnings: string[] = [];
  const tools: CoreTool[] = [];
  const seen = new Set<string>();
  for (const name of wanted) {
    if (seen.has(name)) {
      problems.push(`tools: "${name}" is listed twice`);
      continue;
    }
    seen.add(name);
    const e = BY_NAME.get(name);
    if (!e) {
      problems.push(`tools: unknown tool "${name}" (known: ${CATALOG.map((c) => c.name).join(', ')})`);
    } else if ('unavailable' in e.tool) {
      problems.push(`tools: "${name}" cannot be installed: ${e.tool.unavailable}`);
    } else if (name === 'WebSearch' && env.webSearch && !env.webSearch.usable) {
      problems.push(`tools: "WebSearch" cannot be installed: ${env.webSearch.detail}`);
    } else if (NEEDS_PROCESS_SANDBOX.has(e.group) && !env.processSandbox.usable) {
      const why = `"${name}" cannot be installed: the process sandbox is unusable (${env.processSandbox.detail})`;
      if (explicit) problems.push(`tools: ${why}`);
      else warnings.push(`${why}; it was left out of the default tools`);
    } else {
      tools.push(e.tool);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tools, warnings };
}
