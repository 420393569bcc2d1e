// A capability: a group of tools with what they keep for a session (files read, background
// tasks, shells, the web cache, the subagent host), installed once per session. The session
// hands it the services below; the group makes its state and binds its tools to it. Adding a
// stateful tool is adding it to its group's folder and list.
import type { SearchConfig } from '../config.js';
import type { Fetcher } from '../egress/types.js';
import type { Clock, IdFactory } from '../ids.js';
import type { Workspace } from '../sandbox/paths.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { PermissionMode } from '../contract/schemas.js';
import type { QuestionAnswer, QuestionAsk } from '../interaction/kinds.js';
import type { McpHub } from '../mcp/hub.js';
import type { SubagentTask, ToolContext, ToolFactory, ToolOutput } from './tool.js';

export type ToolGroup = 'file' | 'shell' | 'background' | 'pty' | 'web' | 'interaction' | 'plan' | 'instructions' | 'deferred' | 'subagent' | 'mcp';

/** What a session offers the capabilities it installs. */
export interface SessionServices {
  sessionId: string;
  workspace: Workspace;
  /** How processes are started for this session (the process sandbox). */
  sandbox: SessionSandbox;
  newId: IdFactory;
  clock: Clock;
  /** Where the session's task logs are kept. */
  tasksDir: string;
  /** Background tasks announce themselves (`task.started`, `task.completed`). */
  taskEvents: TaskEvents;
  /**
   * The deny (or ask) rule, as text, that forbids this tool reading this real path, or null.
   * Searches and listings leave such entries out, so a deny rule on a file is not dodged by
   * searching its directory.
   */
  readDenied(tool: string, absReal: string, isDir: boolean): string | null;
  /** Outbound HTTP for one call through the egress guard; every hop is recorded as evidence of that call. */
  fetcher(ctx: Pick<ToolContext, 'turnId' | 'toolUseId'>, tool: string): Fetcher;
  /** The operator's web limits and search backend. */
  web: WebSettings;
  /** Runs a subagent in the session's current prompt turn (the Agent tool). */
  subagent(task: SubagentTask, ctx: ToolContext): Promise<ToolOutput>;
  /** The directory holding the session's memory store (`/memories` of the Memory tool): private to the session, or a named store shared by a tenant's sessions. */
  memoryDir: string;
  /** Asks a person the questions of a call of the session's current turn (AskUser); the turn pauses until they are resolved. */
  askQuestions(ask: QuestionAsk, ctx: ToolContext): Promise<QuestionAnswer>;
  /** The session's mode now, and in plan mode the mode before it (what ExitPlanMode returns to). */
  planState(): { mode: PermissionMode; before: PermissionMode | null };
  /** The skills this session may use (Skill). */
  skills(): readonly SkillInfo[];
  /** The session's MCP servers (null: none). */
  mcp: McpHub | null;
  /** The tools SearchExtraTools searches: the session's deferred tools, now. */
  deferredTools(): readonly DeferredToolInfo[];
}

/** A deferred tool as SearchExtraTools sees it. */
export interface DeferredToolInfo {
  name: string;
  description: string;
  input_schema: unknown;
}

/** A skill a session may use: a folder with a valid `SKILL.md`. */
export interface SkillInfo {
  name: string;
  description: string;
  allowedTools: string[];
  /** Real path of the skill's folder. */
  dir: string;
  source: 'operator' | 'workspace';
  /** SHA-256 of its SKILL.md bytes when it was loaded. */
  sha256: string;
}

export interface TaskEvents {
  started(task: { id: string; command: string }, origin: { turnId: string; toolUseId: string }): void;
  completed(task: { id: string; status: 'running' | 'exited' | 'stopped' | 'failed'; exitCode: number | null; signal: string | null; outputBytes: number }): void;
}

export interface WebSettings {
  fetchMaxBytes: number;
  fetchTimeoutMs: number;
  convertTimeoutMs: number;
  search: SearchConfig | null;
  /** The session's secrets out of what a peer answered (an error page, a failure), before it is cut. */
  redact?: (text: string) => string;
}

export interface Installed<D> {
  deps: D;
  /** Stops what the group keeps running (tasks, shells) when the session ends. */
  close?(): Promise<void> | void;
}

export interface Capability<D = unknown> {
  readonly group: ToolGroup;
  readonly tools: readonly ToolFactory<D>[];
  install(services: SessionServices): Installed<D>;
}
