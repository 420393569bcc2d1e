// execOne: one tool_use → exactly one tool_result, through the stages of SPEC §2 in order:
// lookup → validate → permission (→ ask) → PreToolUse → call → cap → PostToolUse.
// Every input rewrite (tool check, approval, hook) is validated and evaluated again before
// the call (SPEC §9.2): a rewrite never widens what was allowed.
import { inputDigest } from '../digest.js';
import type { Decision, ToolResult } from '../contract/schemas.js';
import type { HookInput, HookRegistry, HookRunRecord } from '../hooks/registry.js';
import { evaluateCall, type PermissionDecision, type RuleSet } from '../permission/evaluate.js';
import type { ApprovalAnswer, ApprovalRequest, Reevaluate } from '../interaction/kinds.js';
import { readDenyRule } from '../permission/rules.js';
import type { PermissionMode } from '../contract/schemas.js';
import { PathRefusal, type Workspace } from '../sandbox/paths.js';
import type { FileReadState } from '../tools/read-state.js';
import type { BackgroundTasks } from '../tools/tasks.js';
import type { PtyShells } from '../tools/pty.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Fetcher } from '../web/types.js';
import type { WebState } from '../web/state.js';
import { ToolRefusal, type CoreTool, type StreamedOutput, type SubagentTask, type ToolContext, type ToolOutput } from '../tools/tool.js';
import { SandboxRefusal, type SessionSandbox } from '../sandbox/session-sandbox.js';
import { CappedTextCollector, capContent, type OpenSpill, type SpillSink } from './output-cap.js';
import type { InputValidator } from './validate.js';

/** How many times one call's input may be rewritten before the pipeline gives up. */
export const MAX_REWRITE_ROUNDS = 8;

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type { AnswerOrigin, ApprovalAnswer, ApprovalRequest, Reevaluate } from '../interaction/kinds.js';

export interface PermissionContext {
  mode: PermissionMode;
  rules: RuleSet;
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
  readState: FileReadState;
  sandbox: SessionSandbox;
  tasks: BackgroundTasks;
  shells: PtyShells;
  capChars: number;
  /** Opens a spill file for a capped block; null: capped text is not kept. */
  spill: ((p: { toolUseId: string; tool: string; blockIndex: number }) => Promise<SpillSink>) | null;
  /** Read at each evaluation, so rules remembered mid-turn apply at once. */
  permissionContext(): PermissionContext;
  awaitApproval(request: ApprovalRequest, signal: AbortSignal, reevaluate?: Reevaluate): Promise<ApprovalAnswer>;
  /** The audit trail: every permission decision about every call. */
  recordDecision(note: DecisionNote): void;
  /** Every hook run of this call (for the hook audit events). */
  onHookRun?(record: HookRunRecord, toolUseId?: string): void;
  /** Outbound HTTP for one call (its hops become evidence of that call). */
  fetcher?: (call: ToolCall, tool: string) => Fetcher;
  web?: WebState;
  /** Prompt turns: what the Agent tool runs (see ToolContext.subagent). */
  subagent?: (call: ToolCall, task: SubagentTask) => Promise<ToolOutput>;
  onStarted(call: ToolCall, input: unknown): void;
  onProgress(call: ToolCall, chunk: string): void;
  /** The turn's signal: cancellation stops waiting and running. */
  signal: AbortSignal;
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

class Stop {
  constructor(readonly outcome: ExecOutcome) {}
}

export async function execOne(call: ToolCall, env: PipelineEnv): Promise<ExecOutcome> {
  try {
    return await runStages(call, env);
  } catch (err) {
    if (err instanceof Stop) return err.outcome;
    throw err;
  }
}

async function runStages(call: ToolCall, env: PipelineEnv): Promise<ExecOutcome> {
  const fail = (text: string, interrupt = false): Stop => new Stop({ result: errorResult(call.id, text), interrupt });
  const cancelled = (): Stop => fail(`Cancelled: ${reasonOf(env.signal)}`);

  // 1. Lookup.
  const tool = env.registry.lookup(call.name);
  if (!tool) {
    const names = env.registry.exposed().map((t) => t.name);
    throw fail(`Unknown tool "${call.name}". Available tools: ${names.length > 0 ? names.join(', ') : '(none)'}.`);
  }

  // 2. Validation.
  const validated = (input: unknown, what: string): unknown => {
    const v = env.validator.validate(tool, input);
    if (!v.ok) throw fail(`Invalid ${what} for ${tool.name}: ${v.errors.join('; ')}. Fix the input and call again.`);
    return v.value;
  };
  let input = validated(call.input, 'input');

  const ctx: ToolContext = {
    sandbox: env.sandbox,
    tasks: env.tasks,
    shells: env.shells,
    openOutput: () => streamedOutput(env, call, tool),
    sessionId: env.sessionId,
    turnId: env.turnId,
    toolUseId: call.id,
    workspace: env.workspace,
    readState: env.readState,
    signal: env.signal,
    progress: (chunk) => env.onProgress(call, chunk),
    ...(env.subagent ? { subagent: (task: SubagentTask) => env.subagent!(call, task) } : {}),
    ...(env.fetcher ? { fetch: env.fetcher(call, tool.name) } : {}),
    ...(env.web ? { web: env.web } : {}),
    readDenied: (absReal, isDir) => {
      const { deny, ask } = env.permissionContext().rules;
      const rule = readDenyRule(deny, tool.name, absReal, isDir, env.workspace.root) ?? readDenyRule(ask, tool.name, absReal, isDir, env.workspace.root);
      return rule?.text ?? null;
    },
  };

  const evaluate = (candidate: unknown): Promise<PermissionDecision> => evaluateCall(tool, candidate, ctx, env.permissionContext());
  let source: InputSource = 'call';
  const record = (d: Pick<DecisionNote, 'behavior' | 'decided_by' | 'rules' | 'reason'> & { permission_id?: string }) =>
    env.recordDecision({
      tool_use_id: call.id,
      tool: tool.name,
      mode: env.permissionContext().mode,
      input_digest: inputDigest(input),
      input_source: source,
      ...d,
    });

  // 3–4. Permission and PreToolUse, looping while rewrites happen.
  const approved = new Set<string>();
  let hooksRan = false;
  /** A PreToolUse hook asked for a person: the current input needs an approval whatever the rules say. */
  let hookAsk: { hook: string; reason: string } | undefined;
  const context: string[] = [];
  const hookOpts = async (candidate: unknown) => ({
    subject: await tool.permissionSubject(candidate, ctx),
    root: env.workspace.root,
    onRun: (r: HookRunRecord) => env.onHookRun?.(r, call.id),
    signal: env.signal,
  });
  for (let round = 0; ; round++) {
    if (env.signal.aborted) throw cancelled();
    if (round >= MAX_REWRITE_ROUNDS) throw fail(`${tool.name}: the input was rewritten more than ${MAX_REWRITE_ROUNDS} times; the call is refused.`);

    let decision = await evaluate(input);
    if (hookAsk && decision.behavior === 'allow') {
      decision = { ...decision, behavior: 'ask', decidedBy: 'hook', rules: [], reason: `${hookAsk.reason} (PreToolUse hook ${hookAsk.hook})`, suggestions: [] };
    }
    const approvedBefore = decision.behavior === 'ask' && approved.has(inputDigest(input));
    record(
      approvedBefore
        ? { behavior: 'allow', decided_by: 'person', rules: [], reason: `${decision.reason}; this exact input was approved earlier in this call` }
        : { behavior: decision.behavior, decided_by: decision.decidedBy, rules: decision.rules, reason: decision.reason },
    );
    if (decision.behavior === 'deny') throw fail(`Permission denied: ${decision.reason}.`);
    if (decision.updatedInput !== undefined && inputDigest(decision.updatedInput) !== inputDigest(input)) {
      input = validated(decision.updatedInput, 'rewritten input (from the tool\'s permission check)');
      source = 'tool';
      continue;
    }
    if (decision.behavior === 'ask' && !approvedBefore) {
      if (env.signal.aborted) throw cancelled();
      const asked = input;
      const answer = await env.awaitApproval(
        { toolUseId: call.id, tool: tool.name, input, reason: decision.reason, suggestions: decision.suggestions },
        env.signal,
        async () => {
          const again = await evaluate(asked);
          return again.behavior === 'ask' ? null : { behavior: again.behavior, reason: again.reason, decidedBy: again.decidedBy, rules: again.rules };
        },
      );
      const perm = answer.permissionId !== undefined ? { permission_id: answer.permissionId } : {};
      if (answer.behavior === 'cancelled') {
        record({ behavior: 'deny', decided_by: 'cancel', rules: [], reason: answer.reason, ...perm });
        throw fail(`Cancelled: ${answer.reason}`);
      }
      if (answer.by === 'rule' && answer.verdict) {
        const d = answer.verdict;
        record({ behavior: d.behavior, decided_by: d.decidedBy, rules: d.rules, reason: `while waiting for an answer: ${d.reason}`, ...perm });
        if (d.behavior === 'deny') throw fail(`Permission denied: ${d.reason}.`);
        approved.add(inputDigest(input));
        continue;
      }
      if (answer.behavior === 'deny') {
        const timedOut = answer.by === 'timeout';
        record({ behavior: 'deny', decided_by: timedOut ? 'timeout' : 'person', rules: [], reason: answer.message ?? 'denied by the user', ...perm });
        throw fail(answer.message ? `Permission denied by the user: ${answer.message}` : 'Permission denied by the user.', answer.interrupt === true);
      }
      record({ behavior: 'allow', decided_by: 'person', rules: [], reason: answer.updatedInput !== undefined ? 'approved with an updated input' : 'approved', ...perm });
      if (answer.updatedInput !== undefined) {
        input = validated(answer.updatedInput, 'updated_input (from the approval)');
        source = 'approval';
      }
      approved.add(inputDigest(input));
      // Evaluate again: deny rules still apply to an approved (possibly rewritten) input.
      continue;
    }

    if (!hooksRan) {
      hooksRan = true;
      const pre = await env.hooks.run('PreToolUse', hookInput(env, call, tool, input), { stopOnBlock: true, ...(await hookOpts(input)) });
      if (pre.blocked) {
        record({ behavior: 'deny', decided_by: 'hook', rules: [], reason: pre.blocked.reason });
        throw fail(`Blocked by PreToolUse hook: ${pre.blocked.reason}`);
      }
      if (pre.stop) {
        record({ behavior: 'deny', decided_by: 'hook', rules: [], reason: `the turn was stopped: ${pre.stop.reason}` });
        throw new Stop({ result: errorResult(call.id, `Stopped by PreToolUse hook: ${pre.stop.reason}`), interrupt: false, stopTurn: pre.stop });
      }
      context.push(...pre.additionalContext);
      if (pre.decision?.behavior === 'ask') hookAsk = { hook: pre.decision.hook, reason: pre.decision.reason };
      if (pre.updatedInput !== undefined && inputDigest(pre.updatedInput) !== inputDigest(input)) {
        input = validated(pre.updatedInput, 'rewritten input (from a PreToolUse hook)');
        source = 'hook';
        continue; // the rewrite is evaluated like a new call; an ask shows the rewritten input
      }
      // The hook wants a person to decide on this input: evaluate again with that in force.
      if (hookAsk && !approved.has(inputDigest(input))) continue;
    }
    break;
  }

  // 5. Call.
  if (env.signal.aborted) throw cancelled();
  env.onStarted(call, input);
  let output;
  try {
    output = await raceAbort(tool.call(input, ctx), env.signal);
  } catch (err) {
    if (env.signal.aborted) throw cancelled();
    const message =
      err instanceof PathRefusal || err instanceof ToolRefusal || err instanceof SandboxRefusal
        ? err.message
        : `${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`;
    const result = errorResult(call.id, message);
    const post = await env.hooks.run('PostToolUseFailure', { ...hookInput(env, call, tool, input), error: message }, { stopOnBlock: false, ...(await hookOpts(input)) });
    return finishWith(result, [...context, ...post.additionalContext], post.stop);
  }

  // 6. Cap.
  const capped = await capContent(
    output.content,
    env.capChars,
    openSpillFor(env, call, tool),
    new Map((output.streamed ?? []).map((s) => [s.blockIndex, s.truncation])),
  );
  const result: ToolResult = {
    type: 'tool_result',
    tool_use_id: call.id,
    is_error: output.isError === true,
    content: capped.content,
    ...(capped.truncations.length > 0 ? { truncation: capped.truncations[0]! } : {}),
    ...(capped.truncations.length > 1 ? { truncations: capped.truncations } : {}),
  };

  // 7. PostToolUse (PostToolUseFailure when the tool reported an error).
  const post = await env.hooks.run(
    result.is_error ? 'PostToolUseFailure' : 'PostToolUse',
    { ...hookInput(env, call, tool, input), tool_response: result },
    { stopOnBlock: false, ...(await hookOpts(input)) },
  );
  // A hook may replace what the model sees; the structured truncation (and its spill file) stays.
  if (post.updatedOutput !== undefined) result.content = [{ type: 'text', text: post.updatedOutput }];
  return finishWith(result, [...context, ...post.additionalContext], post.stop);
}

/** Appends hooks' additional context for the model, and carries a hook's stop of the turn. */
function finishWith(result: ToolResult, context: string[], stop: { hook: string; reason: string } | undefined): ExecOutcome {
  for (const text of context) result.content.push({ type: 'text', text });
  return { result, interrupt: false, ...(stop ? { stopTurn: stop } : {}) };
}

function openSpillFor(env: PipelineEnv, call: ToolCall, tool: CoreTool): OpenSpill {
  const spill = env.spill;
  return spill ? (blockIndex) => spill({ toolUseId: call.id, tool: tool.name, blockIndex }) : null;
}

/** A block a tool streams into; it is capped (and spilled) while it is written. */
function streamedOutput(env: PipelineEnv, call: ToolCall, tool: CoreTool): StreamedOutput {
  // A streamed block is the tool's first content block by convention of its callers; the
  // index recorded in the spill is corrected when the result is assembled.
  const collector = new CappedTextCollector(env.capChars, 0, openSpillFor(env, call, tool));
  return {
    write: (chunk) => collector.write(chunk),
    finish: async () => {
      const done = await collector.finish();
      const blocks = [{ type: 'text' as const, text: done.text }];
      if (done.note) blocks.push({ type: 'text', text: done.note });
      return { blocks, truncation: done.truncation };
    },
    abort: () => collector.abort(),
  };
}

function hookInput(env: PipelineEnv, call: ToolCall, tool: CoreTool, input: unknown): HookInput {
  return {
    hook_event_name: 'PreToolUse',
    session_id: env.sessionId,
    turn_id: env.turnId,
    cwd: env.workspace.root,
    permission_mode: env.permissionContext().mode,
    tool_name: tool.name,
    tool_input: input,
    tool_use_id: call.id,
  };
}

function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r.message;
  return typeof r === 'string' ? r : 'the turn was cancelled';
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
