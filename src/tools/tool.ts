// CoreTool and buildTool (SPEC §1). A tool knows nothing of HTTP, storage or SSE: it gets a
// small ToolContext. buildTool fills the security metadata a tool left out fail-closed:
// mutating (not read-only), exclusive (not concurrency-safe), approval-required.
import type { TSchema } from '@sinclair/typebox';
import type { RuleSubject } from '../permission/subject.js';
import type { TextBlock, Truncation } from '../contract/schemas.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { Workspace } from '../sandbox/paths.js';
import type { FileReadState } from './read-state.js';
import type { BackgroundTasks } from './tasks.js';
import type { PtyShells } from './pty.js';
import type { Fetcher } from '../egress/types.js';
import type { WebState } from '../web/state.js';

export interface ToolContext {
  sessionId: string;
  turnId: string;
  toolUseId: string;
  workspace: Workspace;
  /** Files this session has read (Write/Edit require it). */
  readState: FileReadState;
  signal: AbortSignal;
  /** Live output (becomes a live-only `tool.progress` event). */
  progress(chunk: string): void;
  /** How processes are started for this session (the process sandbox). */
  sandbox: SessionSandbox;
  /** This session's background tasks. */
  tasks: BackgroundTasks;
  /** This session's PTY shells. */
  shells: PtyShells;
  /**
   * The deny rule (its text) that forbids reading this real path with this tool, or null.
   * Searches and listings leave such entries out, so a deny rule on a file is not dodged by
   * searching its directory.
   */
  readDenied(absReal: string, isDir: boolean): string | null;
  /**
   * A block whose text is written in chunks as it is produced: it passes the session's cap
   * as it streams (memory holds the head; the rest goes to a spill file).
   */
  openOutput(): StreamedOutput;
  /**
   * Runs a subagent (the Agent tool): a fresh conversation with the session's model whose calls
   * go through this same pipeline. Absent outside prompt turns.
   */
  subagent?: (task: SubagentTask) => Promise<ToolOutput>;
  /** Outbound HTTP through the egress guard; every hop is recorded as evidence of this call. */
  fetch?: Fetcher;
  /** The session's web state (fetch cache, caps, search backend). */
  web?: WebState;
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
  content: TextBlock[];
  isError?: boolean;
  /** Blocks of `content` that were already capped while streaming, by index. */
  streamed?: { blockIndex: number; truncation: Truncation }[];
}

/** A tool's own judgement of one call (SPEC §4 `checkPermissions`). */
export interface ToolPermissionCheck {
  /** `passthrough`: no opinion, let the stages decide. */
  behavior: 'allow' | 'deny' | 'ask' | 'passthrough';
  reason?: string;
  /** An input rewrite proposed by the tool; validated and evaluated again like any rewrite. */
  updatedInput?: unknown;
  /** Narrow rule strings a client can offer as "always allow". */
  suggestions?: string[];
}

export type RawInputParse = { ok: true; value: unknown } | { ok: false; errors: string[] };

export interface CoreTool {
  readonly name: string;
  readonly description: string;
  /** Model-facing usage text. */
  readonly prompt: string;
  readonly inputSchema: TSchema;
  /** RawInput tools skip central validation; their own parser validates (SPEC §2, §9.1). */
  readonly parseRawInput?: (raw: unknown) => RawInputParse;
  /** Hidden from the exposed list (deferred tools) but still known to lookup. */
  readonly deferred: boolean;
  /** Write/Edit/MultiEdit: auto-allowed in `acceptEdits` mode. */
  readonly isFileEdit: boolean;
  isReadOnly(input: unknown): boolean;
  isConcurrencySafe(input: unknown): boolean;
  requiresApproval(input: unknown): boolean;
  checkPermissions(input: unknown, ctx: ToolContext): Promise<ToolPermissionCheck>;
  /** What rules with a specifier are matched against (paths, commands, URL); `none` by default. */
  permissionSubject(input: unknown, ctx: ToolContext): Promise<RuleSubject>;
  call(input: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

export interface ToolDefinition<I> {
  name: string;
  description: string;
  prompt?: string;
  inputSchema: TSchema;
  parseRawInput?: (raw: unknown) => RawInputParse;
  deferred?: boolean;
  isFileEdit?: boolean;
  isReadOnly?: (input: I) => boolean;
  isConcurrencySafe?: (input: I) => boolean;
  requiresApproval?: (input: I) => boolean;
  checkPermissions?: (input: I, ctx: ToolContext) => Promise<ToolPermissionCheck>;
  permissionSubject?: (input: I, ctx: ToolContext) => Promise<RuleSubject> | RuleSubject;
  call: (input: I, ctx: ToolContext) => Promise<ToolOutput>;
}

/** The input type is trusted inside the tool because the pipeline validated it first. */
export function buildTool<I>(def: ToolDefinition<I>): CoreTool {
  return {
    name: def.name,
    description: def.description,
    prompt: def.prompt ?? def.description,
    inputSchema: def.inputSchema,
    ...(def.parseRawInput ? { parseRawInput: def.parseRawInput } : {}),
    deferred: def.deferred ?? false,
    isFileEdit: def.isFileEdit ?? false,
    // SPEC §1: what a tool leaves out is filled fail-closed.
    isReadOnly: (input) => def.isReadOnly?.(input as I) ?? false,
    isConcurrencySafe: (input) => def.isConcurrencySafe?.(input as I) ?? false,
    requiresApproval: (input) => def.requiresApproval?.(input as I) ?? true,
    checkPermissions: (input, ctx) =>
      def.checkPermissions ? def.checkPermissions(input as I, ctx) : Promise.resolve({ behavior: 'passthrough' }),
    permissionSubject: async (input, ctx) => (def.permissionSubject ? def.permissionSubject(input as I, ctx) : { kind: 'none' }),
    call: (input, ctx) => def.call(input as I, ctx),
  };
}

/**
 * A refusal a tool states to the model: the pipeline turns it into an is_error result with
 * exactly this message (no "<tool> failed:" prefix), as it does for path-sandbox refusals.
 */
export class ToolRefusal extends Error {}

export function textOutput(text: string, isError = false): ToolOutput {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}
