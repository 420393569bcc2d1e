// The tool contract (SPEC §1): a spec (name, manual, schema, security metadata) and its calls. A tool
// knows nothing of HTTP, storage or SSE: a call gets a small ToolContext, and a tool of a group with
// session state gets that state when it is installed (defineTool/bind). What a tool leaves out is
// filled fail-closed: mutating (not read-only), exclusive (not concurrency-safe), approval-required.
import type { TSchema } from '@sinclair/typebox';
import type { RuleSubject } from '../permission/subject.js';
import type { PermissionMode, PermissionPreview, ResultBlock, TextBlock, TodoItem, Truncation } from '../contract/schemas.js';
import type { Workspace } from '../sandbox/paths.js';

/**
 * What one call gets (ARCHITECTURE rule 2): ids, the workspace, the turn's signal, live progress
 * and the capped output sink. What a tool's group keeps between calls (files read, tasks,
 * shells, the web cache, the subagent host) it gets once, when its session installs it.
 */
export interface ToolContext {
  sessionId: string;
  turnId: string;
  toolUseId: string;
  workspace: Workspace;
  signal: AbortSignal;
  /** Live output (becomes a live-only `tool.progress` event). */
  progress(chunk: string): void;
  /**
   * A block whose text is written in chunks as it is produced: it passes the session's cap
   * as it streams (memory holds the head; the rest goes to a spill file).
   */
  openOutput(): StreamedOutput;
}

export interface SubagentTask {
  description: string;
  prompt: string;
  type: string;
}

export interface StreamedOutput {
  write(chunk: string): Promise<void>;
  /** The capped block (and, when capped, a note block) with its structured truncation. */
  finish(): Promise<{ blocks: TextBlock[]; truncation: Truncation | null }>;
  /** Discards a spill that will not be used. */
  abort(): Promise<void>;
}

export interface ToolOutput {
  /** Text blocks pass the session's cap; image blocks (MCP tools) pass as they are. */
  content: ResultBlock[];
  isError?: boolean;
  /** Blocks of `content` that were already capped while streaming, by index. */
  streamed?: { blockIndex: number; truncation: Truncation }[];
  /** Changes to the session the call asks for; the pipeline applies them through the session's settings. */
  effects?: ToolEffect[];
  /**
   * A call handed to another tool (ARCHITECTURE rule 3): the pipeline runs it through every stage
   * under the inner tool's name, and its result becomes this call's result.
   */
  delegate?: { name: string; input: unknown };
}

/** A change of session state a tool's result carries (tools never change the session themselves). */
export type ToolEffect =
  | { kind: 'set_mode'; mode: PermissionMode }
  | { kind: 'add_rules'; behavior: 'allow' | 'deny' | 'ask'; rules: string[] }
  /** Replaces the session's todo list (TodoWrite). */
  | { kind: 'set_todos'; items: TodoItem[] }
  /** A skill was invoked: its folder becomes readable to the file tools, its `allowed-tools` are unlocked (durably). */
  | { kind: 'use_skill'; skill: string; unlock: string[] }
  /** Deferred tools become callable (SearchExtraTools returned them); durable. */
  | { kind: 'unlock'; tools: string[] };


/** A tool's own judgement of one call (SPEC §4 `checkPermissions`). */
export interface ToolPermissionCheck {
  /** `passthrough`: no opinion, let the stages decide. */
  behavior: 'allow' | 'deny' | 'ask' | 'passthrough';
  reason?: string;
  /** An input rewrite proposed by the tool; validated and evaluated again like any rewrite. */
  updatedInput?: unknown;
  /** Narrow rule strings a client can offer as "always allow". */
  suggestions?: string[];
  /**
   * With `ask`: a person decides whatever the mode and the allow rules (ExitPlanMode's plan);
   * deny rules still deny, and where nobody is asked (dontAsk, auto) it is a denial.
   */
  always?: boolean;
}

/**
 * A RawInput tool's verdict on an input. `refusal`: the input could not be judged (its check ran
 * out of time); the call's error result is this text instead of the list of problems.
 */
export type RawInputParse = { ok: true; value: unknown } | { ok: false; errors: string[]; refusal?: string };

/** What is known of a tool without a session: its name, manual, schema and security metadata. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** Model-facing usage text. */
  readonly prompt: string;
  readonly inputSchema: TSchema;
  /** RawInput tools skip central validation; their own parser validates (SPEC §2, §9.1). */
  readonly parseRawInput?: (raw: unknown) => RawInputParse;
  /**
   * A RawInput parser that runs off the event loop (an MCP server's schema, whose cost is the
   * server's to choose): the pipeline awaits it (InputValidator.check).
   */
  readonly parseRawInputAsync?: (raw: unknown, signal?: AbortSignal) => Promise<RawInputParse>;
  /** Hidden from the exposed list (deferred tools) but still known to lookup. */
  readonly deferred: boolean;
  /** Write/Edit/MultiEdit: auto-allowed in `acceptEdits` mode. */
  readonly isFileEdit: boolean;
  /** Needs a person to answer (AskUser, ExitPlanMode): refused at once where nobody is asked (dontAsk, auto). */
  readonly interactive: boolean;
  /** Checks the schema cannot state (e.g. unique question texts), run after it passed; each string is one problem. */
  readonly checkInput?: (input: unknown) => string[];
  /**
   * Every call of it is handed on (a `delegate`, ExecuteExtraTool): its start is announced when the
   * inner call starts — after the inner call's own checks and any wait for a person — not before.
   */
  readonly handsOn: boolean;
  /** Run by the session's client, never by the server (`client_tools`): listed with `client: true`. */
  readonly client?: boolean;
  isReadOnly(input: unknown): boolean;
  isConcurrencySafe(input: unknown): boolean;
  requiresApproval(input: unknown): boolean;
}

/**
 * What a call would do, for a person asked to allow it (a permission request's `preview`), and a
 * check of whether its target changed since (answered when the person answers).
 */
export interface PreviewResult {
  preview: PermissionPreview;
  stale?: () => boolean;
}

/** A tool as a session has it: its spec and the calls, bound to the session's state. */
export interface CoreTool extends ToolSpec {
  /** What the call would do, for a person asked to allow it; absent: the pipeline's own (commands, URLs) or none. */
  preview?(input: unknown, ctx: ToolContext): Promise<PreviewResult | null>;
  checkPermissions(input: unknown, ctx: ToolContext): Promise<ToolPermissionCheck>;
  /** What rules with a specifier are matched against (paths, commands, URL); `none` by default. */
  permissionSubject(input: unknown, ctx: ToolContext): Promise<RuleSubject>;
  call(input: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

/** A tool whose calls need what its group keeps for a session: bound to it when a session installs it. */
export interface ToolFactory<D> extends ToolSpec {
  bind(deps: D): CoreTool;
}

export interface ToolDefinition<I, D = void> {
  name: string;
  description: string;
  prompt?: string;
  inputSchema: TSchema;
  parseRawInput?: (raw: unknown) => RawInputParse;
  parseRawInputAsync?: (raw: unknown, signal?: AbortSignal) => Promise<RawInputParse>;
  deferred?: boolean;
  isFileEdit?: boolean;
  interactive?: boolean;
  handsOn?: boolean;
  client?: boolean;
  checkInput?: (input: I) => string[];
  isReadOnly?: (input: I) => boolean;
  isConcurrencySafe?: (input: I) => boolean;
  requiresApproval?: (input: I) => boolean;
  checkPermissions?: (input: I, ctx: ToolContext, deps: D) => Promise<ToolPermissionCheck>;
  permissionSubject?: (input: I, ctx: ToolContext, deps: D) => Promise<RuleSubject> | RuleSubject;
  preview?: (input: I, ctx: ToolContext, deps: D) => Promise<PreviewResult | null>;
  call: (input: I, ctx: ToolContext, deps: D) => Promise<ToolOutput>;
}

/** The spec part of a definition; what a tool leaves out is filled fail-closed (SPEC §1). */
function specOf<I, D>(def: ToolDefinition<I, D>): ToolSpec {
  return {
    name: def.name,
    description: def.description,
    prompt: def.prompt ?? def.description,
    inputSchema: def.inputSchema,
    ...(def.parseRawInput ? { parseRawInput: def.parseRawInput } : {}),
    ...(def.parseRawInputAsync ? { parseRawInputAsync: def.parseRawInputAsync } : {}),
    deferred: def.deferred ?? false,
    isFileEdit: def.isFileEdit ?? false,
    interactive: def.interactive ?? false,
    handsOn: def.handsOn ?? false,
    ...(def.client ? { client: true } : {}),
    ...(def.checkInput ? { checkInput: def.checkInput as (input: unknown) => string[] } : {}),
    isReadOnly: (input) => def.isReadOnly?.(input as I) ?? false,
    isConcurrencySafe: (input) => def.isConcurrencySafe?.(input as I) ?? false,
    requiresApproval: (input) => def.requiresApproval?.(input as I) ?? true,
  };
}

function bindDefinition<I, D>(spec: ToolSpec, def: ToolDefinition<I, D>, deps: D): CoreTool {
  return {
    ...spec,
    checkPermissions: (input, ctx) =>
      def.checkPermissions ? def.checkPermissions(input as I, ctx, deps) : Promise.resolve({ behavior: 'passthrough' }),
    permissionSubject: async (input, ctx) => (def.permissionSubject ? def.permissionSubject(input as I, ctx, deps) : { kind: 'none' }),
    ...(def.preview ? { preview: (input: unknown, ctx: ToolContext) => def.preview!(input as I, ctx, deps) } : {}),
    call: (input, ctx) => def.call(input as I, ctx, deps),
  };
}

/** A tool that needs nothing of its session beyond the call's context. The input type is trusted inside the tool because the pipeline validated it first. */
export function buildTool<I>(def: ToolDefinition<I, void>): CoreTool {
  return bindDefinition(specOf(def), def, undefined);
}

/** A tool of a group with session state: `bind` gives it that state when a session installs it. */
export function defineTool<I, D>(def: ToolDefinition<I, D>): ToolFactory<D> {
  const spec = specOf(def);
  return { ...spec, bind: (deps) => bindDefinition(spec, def, deps) };
}

/**
 * A refusal a tool states to the model: the pipeline turns it into an is_error result with
 * exactly this message (no "<tool> failed:" prefix), as it does for path-sandbox refusals.
 */
export class ToolRefusal extends Error {}

export function textOutput(text: string, isError = false): ToolOutput {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}
