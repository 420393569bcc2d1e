// The cap and post stages (SPEC §2 steps 6–7): the output is capped (and spilled), then
// PostToolUse — or PostToolUseFailure, for a tool that failed or reported an error — runs, in
// this one place. A hook may replace what the model sees; the structured truncation (and its
// spill file) stays. Hooks' additional context is appended for the model.
import type { ToolResult } from '../contract/schemas.js';
import type { CoreTool } from '../tools/tool.js';
import { hookInput, hookOptions } from './authorize.js';
import { openSpillFor, type Called } from './call.js';
import type { CallInputs } from './inputs.js';
import { capContent } from './output-cap.js';
import { errorResult, type ExecOutcome, type PipelineEnv, type ToolCall } from './types.js';

export async function capOutput(call: ToolCall, tool: CoreTool, called: Called, env: PipelineEnv): Promise<ToolResult> {
  if (!called.ok) return errorResult(call.id, called.message);
  const { output } = called;
  const capped = await capContent(
    output.content,
    env.capChars,
    openSpillFor(env, call, tool),
    new Map((output.streamed ?? []).map((s) => [s.blockIndex, s.truncation])),
  );
  return {
    type: 'tool_result',
    tool_use_id: call.id,
    is_error: output.isError === true,
    content: capped.content,
    ...(capped.truncations.length > 0 ? { truncation: capped.truncations[0]! } : {}),
    ...(capped.truncations.length > 1 ? { truncations: capped.truncations } : {}),
  };
}

export async function postToolUse(
  call: ToolCall,
  tool: CoreTool,
  input: unknown,
  called: Called,
  result: ToolResult,
  context: string[],
  inputs: CallInputs,
  env: PipelineEnv,
): Promise<ExecOutcome> {
  const base = hookInput(env, call, tool, input);
  const opts = { stopOnBlock: false, ...(await hookOptions(call, input, inputs, env, ['PostToolUse', 'PostToolUseFailure'])) };
  const post = !called.ok
    ? await env.hooks.run('PostToolUseFailure', { ...base, error: called.message }, opts)
    : await env.hooks.run(result.is_error ? 'PostToolUseFailure' : 'PostToolUse', { ...base, tool_response: result }, opts);
  if (called.ok && post.updatedOutput !== undefined) result.content = [{ type: 'text', text: post.updatedOutput }];
  for (const text of [...context, ...post.additionalContext]) result.content.push({ type: 'text', text });
  return { result, interrupt: false, ...(post.stop ? { stopTurn: post.stop } : {}) };
}
