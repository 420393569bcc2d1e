// What the pipeline works with: a call, the environment a turn gives it, and what comes out.
import type { Decision, PermissionMode, ToolResult } from '../contract/schemas.js';
import { inputDigest } from '../digest.js';
import type { HookRegistry, HookRunRecord } from '../hooks/registry.js';
import type { ApprovalAnswer, ApprovalRequest, Reevaluate } from '../interaction/kinds.js';
import type { RuleSet } from '../permission/evaluate.js';
import type { ParsedRule } from '../permission/rules.js';
import type { Workspace } from '../sandbox/paths.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolEffect } from '../tools/tool.js';
import type { SpillSink } from './output-cap.js';
import type { InputValidator, Validation } from './validate.js';

/** How many times one call's input may be rewritten before the pipeline gives up. */
export const MAX_REWRITE_ROUNDS = 8;

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  /** The validation of `input`, when the turn already made it (to group calls): not made twice. */
  validation?: Validation;
}

export type { AnswerOrigin, ApprovalAnswer, ApprovalRequest, Reevaluate } from '../interaction/kinds.js';

export interface PermissionContext {
  /** The session's mode, or its tenant's max_permission_mode when that is stricter. */
  mode: PermissionMode;
  rules: RuleSet;
  /** The tenant's `disallowed_tools`, checked before anything else. */
  policyDeny?: readonly ParsedRule[];
}

export type InputSource = Decision['input_source'];

/** A decision as the pipeline states it; the session adds seq, ids and time. */
export type DecisionNote = Omit<Decision, 'seq' | 'session_id' | 'turn_id' | 'created_at'>;

export interface PipelineEnv {
  sessionId: string;
  turnId: string;
  registry: ToolRegistry;
  validator: InputValidator;
  hooks: HookRegistry;
  workspace: Workspace;
  capChars: number;
  /** Opens a spill file for a capped block; null: capped text is not kept. */
  spill: ((p: { toolUseId: string; tool: string; blockIndex: number; preview?: boolean }) => Promise<SpillSink>) | null;
  /** Read at each evaluation, so rules remembered mid-turn apply at once. */
  permissionContext(): PermissionContext;
  awaitApproval(request: ApprovalRequest, signal: AbortSignal, reevaluate?: Reevaluate): Promise<ApprovalAnswer>;
  /**
   * The audit trail: every permission decision about every call. A decision may be stored with
   * the call's next write (its tool.started): `writeDecisions` stores those held now, and runs
   * before a hook or a person is told of the call.
   */
  recordDecision(note: DecisionNote): void;
  writeDecisions?(): void;
  /** Every hook run of this call (for the hook audit events). */
  onHookRun?(record: HookRunRecord, toolUseId?: string): void;
  /** Applies the session changes a tool's result carries (set mode, add rules), through the session's settings. */
  applyEffects?(effects: readonly ToolEffect[], call: ToolCall): void | Promise<void>;
  /** Whether a deferred tool was unlocked (SearchExtraTools, a skill's allowed-tools); read at each admission. */
  isUnlocked?(name: string): boolean;
  onStarted(call: ToolCall, input: unknown): void;
  /**
   * Resolves once what the turn recorded so far (a call's decision and start) has committed;
   * rejects when it did not. Absent: a store that commits before the write returns (SQLite).
   */
  recorded?(): Promise<void>;
  onProgress(call: ToolCall, chunk: string): void;
  /** The path or process sandbox refused what the call tried (a path out of the workspace, a process after close). */
  onRefusal?(call: ToolCall, tool: string, refusal: { what: 'path' | 'process'; why: string }): void;
  /** The turn's signal: cancellation stops waiting and running. */
  signal: AbortSignal;
  /**
   * A session with checkpoints: `before` records the workspace before a call that may change it
   * runs, `after` once it ended (what it changed goes with its tool.completed). Neither fails a
   * call: a checkpoint that cannot be made is said in the call's changes.
   */
  checkpoint?: { before(call: ToolCall): Promise<void>; after(call: ToolCall): Promise<void> };
}

export interface ExecOutcome {
  result: ToolResult;
  /** The person denied with `interrupt`: the rest of the turn stops. */
  interrupt: boolean;
  /** A hook answered `continue: false`: the rest of the turn stops with this reason. */
  stopTurn?: { hook: string; reason: string };
}

export function errorResult(toolUseId: string, text: string): ToolResult {
  return { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: [{ type: 'text', text }] };
}

/** Canonical JSON (sorted keys) → SHA-256: identifies an exact input an approval covered. */
export { inputDigest };



/** Ends the stages early with this outcome. */
export class Stop {
  constructor(readonly outcome: ExecOutcome) {}
}

export function fail(call: ToolCall, text: string, interrupt = false): Stop {
  return new Stop({ result: errorResult(call.id, text), interrupt });
}

export function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r.message;
  return typeof r === 'string' ? r : 'the turn was cancelled';
}

export function cancelled(call: ToolCall, signal: AbortSignal): Stop {
  return fail(call, `Cancelled: ${reasonOf(signal)}`);
}

export type { Validation };
