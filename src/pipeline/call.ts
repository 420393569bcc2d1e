// The call stage (SPEC §2 step 5): the per-call context a tool gets, and running the tool under
// the turn's signal. A refusal the tool states (path sandbox, process sandbox, its own) reaches
// the model as it is; anything else is "<tool> failed: …".
import { PathRefusal } from '../sandbox/paths.js';
import { SandboxRefusal } from '../sandbox/session-sandbox.js';
import { ToolRefusal, type CoreTool, type StreamedOutput, type ToolContext, type ToolOutput } from '../tools/tool.js';
import { CappedTextCollector, type OpenSpill } from './output-cap.js';
import { cancelled, type PipelineEnv, type ToolCall } from './types.js';

export function toolContext(call: ToolCall, tool: CoreTool, env: PipelineEnv): ToolContext {
  return {
    sessionId: env.sessionId,
    turnId: env.turnId,
    toolUseId: call.id,
    workspace: env.workspace,
    signal: env.signal,
    progress: (chunk) => env.onProgress(call, chunk),
    openOutput: () => streamedOutput(env, call, tool),
  };
}

export type Called = { ok: true; output: ToolOutput } | { ok: false; message: string };

/** Runs the tool; a cancelled turn throws the cancellation `Stop`. */
export async function callTool(call: ToolCall, tool: CoreTool, input: unknown, ctx: ToolContext, env: PipelineEnv): Promise<Called> {
  if (env.signal.aborted) throw cancelled(call, env.signal);
  if (!tool.handsOn) env.onStarted(call, input);
  // An effect comes after its record: on a store that commits without waiting, a call that may
  // change something runs once its decision and start are stored, never before (a record that
  // failed leaves a call that did not run).
  if (env.recorded && !tool.isReadOnly(input)) {
    try {
      // A turn cancelled meanwhile stops waiting at once (the call then never runs).
      await raceAbort(env.recorded(), env.signal);
    } catch (err) {
      if (env.signal.aborted) throw cancelled(call, env.signal);
      return { ok: false, message: `${tool.name} was not run: the record of the call could not be stored (${err instanceof Error ? err.message : String(err)}).` };
    }
  }
  // The workspace as it was before a call that may change it (a checkpoint to rewind to).
  const checkpoint = env.checkpoint && !tool.isReadOnly(input) ? env.checkpoint : undefined;
  if (checkpoint) {
    try {
      await raceAbort(checkpoint.before(call), env.signal);
    } catch {
      if (env.signal.aborted) throw cancelled(call, env.signal);
    }
  }
  try {
    const output = await raceAbort(tool.call(input, ctx), env.signal);
    if (checkpoint) await checkpoint.after(call).catch(() => undefined);
    return { ok: true, output };
  } catch (err) {
    // What it changed before it failed or was stopped is recorded too (the next checkpoint has it anyway).
    if (checkpoint) {
      const after = checkpoint.after(call).catch(() => undefined);
      if (!env.signal.aborted) await after;
    }
    if (env.signal.aborted) throw cancelled(call, env.signal);
    if (err instanceof PathRefusal && err.confinement) env.onRefusal?.(call, tool.name, { what: 'path', why: err.message });
    else if (err instanceof SandboxRefusal) env.onRefusal?.(call, tool.name, { what: 'process', why: err.message });
    const message =
      err instanceof PathRefusal || err instanceof ToolRefusal || err instanceof SandboxRefusal
        ? err.message
        : `${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, message };
  }
}

export function openSpillFor(env: PipelineEnv, call: ToolCall, tool: CoreTool): OpenSpill {
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
