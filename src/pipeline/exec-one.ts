// execOne: one tool_use → exactly one tool_result, through the stages of SPEC §2 in order.
// Each stage is one function returning a value; reading this file is reading the lifecycle:
//   admit → validate → authorize (evaluate ⇄ ask ⇄ PreToolUse, rewrites re-validated)
//         → call (→ delegate: the inner call through all of this) → effects → cap → PostToolUse / PostToolUseFailure.
// A stage that ends the call early throws a `Stop` carrying the call's result.
import type { CoreTool, ToolOutput } from '../tools/tool.js';
import { authorize } from './authorize.js';
import { callTool, toolContext } from './call.js';
import { CallInputs } from './inputs.js';
import { capOutput, postToolUse } from './post.js';
import { fail, Stop, type ExecOutcome, type PipelineEnv, type ToolCall } from './types.js';

export * from './types.js';

export async function execOne(call: ToolCall, env: PipelineEnv, delegated = false): Promise<ExecOutcome> {
  try {
    const tool = admit(call, env);
    const ctx = toolContext(call, tool, env);
    const inputs = new CallInputs(call, tool, env, ctx);
    const input = await inputs.validated(call.input, 'input');
    const authorized = await authorize(call, tool, input, inputs, env);
    const called = await callTool(call, tool, authorized.input, ctx, env);
    if (called.ok && called.output.delegate) return await delegate(call, tool, called.output.delegate, env, delegated);
    // A call that failed or reported an error changes nothing of the session.
    if (called.ok && !called.output.isError && called.output.effects?.length) await applyEffects(call, tool.name, called.output.effects, env);
    const result = await capOutput(call, tool, called, env);
    return await postToolUse(call, tool, authorized.input, called, result, authorized.context, inputs, env);
  } catch (err) {
    if (err instanceof Stop) return err.outcome;
    throw err;
  }
}

/**
 * A tool handed its call to another: the inner call goes through every stage under the inner
 * tool's name (its admission, validation, rules, ask, hooks, cap), and its result is the call's
 * result. It may not hand on again. The call is announced once: by a tool that always hands on
 * (`handsOn`), when the inner call starts — so a call waiting for a person about the inner tool is
 * not counted as running; by any other, when it started itself.
 */
function delegate(call: ToolCall, outer: CoreTool, inner: { name: string; input: unknown }, env: PipelineEnv, delegated: boolean): Promise<ExecOutcome> {
  if (delegated) throw fail(call, `${outer.name}: a delegated call cannot hand its call on again.`);
  // The inner call's decisions are stored before it runs, whether or not it is announced.
  return execOne({ id: call.id, name: inner.name, input: inner.input }, outer.handsOn ? env : { ...env, onStarted: () => env.writeDecisions?.() }, true);
}

/**
 * The session changes a result carries, applied (committed, and in force for what the turn does
 * next) before the result is recorded; one that cannot be applied fails the call.
 */
async function applyEffects(call: ToolCall, tool: string, effects: NonNullable<ToolOutput['effects']>, env: PipelineEnv): Promise<void> {
  if (!env.applyEffects) throw fail(call, `${tool}: this session cannot apply the changes the call asked for.`);
  try {
    await env.applyEffects(effects, call);
  } catch (err) {
    throw fail(call, `${tool}: the changes the call asked for could not be applied: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Lookup (SPEC §1): a name the session does not know is an error result listing the ones it does.
 * Admission (SPEC §9.12): a deferred tool runs only once unlocked — by its own name and through
 * ExecuteExtraTool alike, since a delegated call comes through here too.
 */
function admit(call: ToolCall, env: PipelineEnv): CoreTool {
  const tool = env.registry.lookup(call.name);
  if (tool) {
    if (env.registry.isDeferred(tool.name) && !env.isUnlocked?.(tool.name)) {
      throw fail(call, `${tool.name} is a deferred tool that is not unlocked yet: find it with SearchExtraTools first (for example select:${tool.name}), then call it.`);
    }
    return tool;
  }
  const names = env.registry.exposed().map((t) => t.name);
  throw fail(call, `Unknown tool "${call.name}". Available tools: ${names.length > 0 ? names.join(', ') : '(none)'}.`);
}
