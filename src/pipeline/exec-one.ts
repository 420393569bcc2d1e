// execOne: one tool_use → exactly one tool_result, through the stages of SPEC §2 in order.
// Each stage is one function returning a value; reading this file is reading the lifecycle:
//   admit → validate → authorize (evaluate ⇄ ask ⇄ PreToolUse, rewrites re-validated)
//         → call → cap → PostToolUse / PostToolUseFailure.
// A stage that ends the call early throws a `Stop` carrying the call's result.
import type { CoreTool } from '../tools/tool.js';
import { authorize } from './authorize.js';
import { callTool, toolContext } from './call.js';
import { CallInputs } from './inputs.js';
import { capOutput, postToolUse } from './post.js';
import { fail, Stop, type ExecOutcome, type PipelineEnv, type ToolCall } from './types.js';

export * from './types.js';

export async function execOne(call: ToolCall, env: PipelineEnv): Promise<ExecOutcome> {
  try {
    const tool = admit(call, env);
    const ctx = toolContext(call, tool, env);
    const inputs = new CallInputs(call, tool, env, ctx);
    const input = inputs.validated(call.input, 'input');
    const authorized = await authorize(call, tool, input, inputs, env);
    const called = await callTool(call, tool, authorized.input, ctx, env);
    const result = await capOutput(call, tool, called, env);
    return await postToolUse(call, tool, authorized.input, called, result, authorized.context, inputs, env);
  } catch (err) {
    if (err instanceof Stop) return err.outcome;
    throw err;
  }
}

/** Lookup (SPEC §1): a name the session does not know is an error result listing the ones it does. */
function admit(call: ToolCall, env: PipelineEnv): CoreTool {
  const tool = env.registry.lookup(call.name);
  if (tool) return tool;
  const names = env.registry.exposed().map((t) => t.name);
  throw fail(call, `Unknown tool "${call.name}". Available tools: ${names.length > 0 ? names.join(', ') : '(none)'}.`);
}
