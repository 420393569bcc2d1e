// The authorize stage (SPEC §2 steps 3–4, §9.2): evaluate ⇄ ask a person ⇄ PreToolUse, again
// after every rewrite — the tool's own, an approval's `updated_input`, a hook's — each
// validated and evaluated like a new call, so a rewrite never widens what was allowed. Every
// decision is recorded. Returns the input the call runs with and the hooks' context for the model.
import type { HookEventName } from '../contract/schemas.js';
import type { HookInput, HookRunRecord } from '../hooks/registry.js';
import type { CoreTool } from '../tools/tool.js';
import type { CallInputs } from './inputs.js';
import { previewFor } from './preview.js';
import { cancelled, fail, MAX_REWRITE_ROUNDS, Stop, errorResult, type DecisionNote, type InputSource, type PipelineEnv, type ToolCall } from './types.js';

export interface Authorized {
  input: unknown;
  /** PreToolUse hooks' additional context, for the model. */
  context: string[];
}

type Recorded = Pick<DecisionNote, 'behavior' | 'decided_by' | 'rules' | 'reason'> & { permission_id?: string };

export async function authorize(call: ToolCall, tool: CoreTool, first: unknown, inputs: CallInputs, env: PipelineEnv): Promise<Authorized> {
  let input = first;
  let source: InputSource = 'call';
  const record = (d: Recorded) =>
    env.recordDecision({ tool_use_id: call.id, tool: tool.name, mode: env.permissionContext().mode, input_digest: inputs.digest(input), input_source: source, ...d });
  const rewrite = async (next: unknown, what: string, from: InputSource) => {
    input = await inputs.validated(next, what);
    source = from;
  };
  /** Inputs a person (or a rule or a PermissionRequest hook, while the call waited) approved in this call, by digest: who did. */
  const approved = new Map<string, Recorded['decided_by']>();
  let hooksRan = false;
  /** A PreToolUse hook asked for a person: the current input needs an approval whatever the rules say. */
  let hookAsk: { hook: string; reason: string } | undefined;
  const context: string[] = [];

  for (let round = 0; ; round++) {
    if (env.signal.aborted) throw cancelled(call, env.signal);
    if (round >= MAX_REWRITE_ROUNDS) throw fail(call, `${tool.name}: the input was rewritten more than ${MAX_REWRITE_ROUNDS} times; the call is refused.`);

    let decision = await inputs.evaluate(input);
    if (hookAsk && decision.behavior === 'allow') {
      decision = { ...decision, behavior: 'ask', decidedBy: 'hook', rules: [], reason: `${hookAsk.reason} (PreToolUse hook ${hookAsk.hook})`, suggestions: [] };
    }
    const approvedBy = decision.behavior === 'ask' ? approved.get(inputs.digest(input)) : undefined;
    const approvedBefore = approvedBy !== undefined;
    record(
      approvedBy !== undefined
        ? { behavior: 'allow', decided_by: approvedBy, rules: [], reason: `${decision.reason}; this exact input was approved earlier in this call` }
        : { behavior: decision.behavior, decided_by: decision.decidedBy, rules: decision.rules, reason: decision.reason },
    );
    if (decision.behavior === 'deny') throw fail(call, `Permission denied: ${decision.reason}.`);
    if (decision.updatedInput !== undefined && inputs.digest(decision.updatedInput) !== inputs.digest(input)) {
      await rewrite(decision.updatedInput, 'rewritten input (from the tool\'s permission check)', 'tool');
      continue;
    }

    if (decision.behavior === 'ask' && !approvedBefore) {
      if (env.signal.aborted) throw cancelled(call, env.signal);
      const asked = input;
      env.writeDecisions?.();
      const answer = await env.awaitApproval(
        {
          toolUseId: call.id,
          tool: tool.name,
          input,
          reason: decision.reason,
          suggestions: decision.suggestions,
          makePreview: () => previewFor(call, tool, asked, decision.reason, inputs, env),
        },
        env.signal,
        async () => {
          inputs.forget();
          const again = await inputs.evaluate(asked);
          return again.behavior === 'ask' ? null : { behavior: again.behavior, reason: again.reason, decidedBy: again.decidedBy, rules: again.rules };
        },
      );
      inputs.forget();
      const perm = answer.permissionId !== undefined ? { permission_id: answer.permissionId } : {};
      if (answer.behavior === 'cancelled') {
        record({ behavior: 'deny', decided_by: 'cancel', rules: [], reason: answer.reason, ...perm });
        throw fail(call, `Cancelled: ${answer.reason}`);
      }
      if (answer.by === 'rule' && answer.verdict) {
        const v = answer.verdict;
        record({ behavior: v.behavior, decided_by: v.decidedBy, rules: v.rules, reason: v.decidedBy === 'hook' ? v.reason : `while waiting for an answer: ${v.reason}`, ...perm });
        if (v.behavior === 'deny') throw fail(call, `Permission denied: ${v.reason}.`);
        approved.set(inputs.digest(input), v.decidedBy);
        continue;
      }
      if (answer.behavior === 'deny') {
        const timedOut = answer.by === 'timeout';
        record({ behavior: 'deny', decided_by: timedOut ? 'timeout' : 'person', rules: [], reason: answer.message ?? 'denied by the user', ...perm });
        throw fail(call, answer.message ? `Permission denied by the user: ${answer.message}` : 'Permission denied by the user.', answer.interrupt === true);
      }
      record({ behavior: 'allow', decided_by: 'person', rules: [], reason: answer.updatedInput !== undefined ? 'approved with an updated input' : 'approved', ...perm });
      if (answer.updatedInput !== undefined) await rewrite(answer.updatedInput, 'updated_input (from the approval)', 'approval');
      approved.set(inputs.digest(input), 'person');
      // Evaluate again: deny rules still apply to an approved (possibly rewritten) input.
      continue;
    }

    if (!hooksRan) {
      hooksRan = true;
      if (env.hooks.has('PreToolUse')) env.writeDecisions?.();
      const pre = await env.hooks.run('PreToolUse', hookInput(env, call, tool, input), { stopOnBlock: true, ...(await hookOptions(call, input, inputs, env, ['PreToolUse'])) });
      if (pre.blocked) {
        record({ behavior: 'deny', decided_by: 'hook', rules: [], reason: pre.blocked.reason });
        throw fail(call, `Blocked by PreToolUse hook: ${pre.blocked.reason}`);
      }
      if (pre.stop) {
        record({ behavior: 'deny', decided_by: 'hook', rules: [], reason: `the turn was stopped: ${pre.stop.reason}` });
        throw new Stop({ result: errorResult(call.id, `Stopped by PreToolUse hook: ${pre.stop.reason}`), interrupt: false, stopTurn: pre.stop });
      }
      context.push(...pre.additionalContext);
      if (pre.decision?.behavior === 'ask') hookAsk = { hook: pre.decision.hook, reason: pre.decision.reason };
      if (pre.updatedInput !== undefined && inputs.digest(pre.updatedInput) !== inputs.digest(input)) {
        await rewrite(pre.updatedInput, 'rewritten input (from a PreToolUse hook)', 'hook');
        continue; // the rewrite is evaluated like a new call; an ask shows the rewritten input
      }
      // The hook wants a person to decide on this input: evaluate again with that in force.
      if (hookAsk && !approved.has(inputs.digest(input))) continue;
    }
    return { input, context };
  }
}

/** What a hook run of this call is told and reports to; the rule subject only when a hook of `events` has an `if` to match. */
export async function hookOptions(call: ToolCall, input: unknown, inputs: CallInputs, env: PipelineEnv, events: readonly HookEventName[]) {
  return {
    ...(env.hooks.conditional(events) ? { subject: await inputs.subject(input) } : {}),
    root: env.workspace.root,
    onRun: (r: HookRunRecord) => env.onHookRun?.(r, call.id),
    signal: env.signal,
  };
}

export function hookInput(env: PipelineEnv, call: ToolCall, tool: CoreTool, input: unknown): HookInput {
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
