// The Agent tool's loop: a fresh conversation with the model, the session's tools minus Agent,
// every call through the pipeline (permissions, hooks, sandbox) with its events marked by the
// Agent call's id, its model calls counted toward the turn's budgets (nobody is asked from inside
// it: a limit reached ends the turn). Its failures are the Agent call's is_error result, never the
// parent turn's — unless a person or a hook stops the work, which stops the parent turn too.
import type { ToolResult, Turn } from '../contract/schemas.js';
import type { CallChanges } from '../contract/checkpoint.js';
import type { EventLog } from '../events/log.js';
import { errorResult, execOne, type PipelineEnv } from '../pipeline/exec-one.js';
import { ProviderError, type Message, type ModelResponse, type TextBlock, type ToolUseBlock, type AssistantBlock } from '../model/provider.js';
import { toModelResult } from '../model/transcript.js';
import type { Store } from '../store/store.js';
import { textOutput, type SubagentTask, type ToolOutput } from '../tools/tool.js';
import { TurnStop } from '../interaction/stop.js';
import { budgetGate, type BudgetGateHost } from './budget-gate.js';
import { requestOptions } from '../model/index.js';
import type { PromptTurnDeps } from './prompt-deps.js';

const SUBAGENT_SYSTEM =
  'You are a subagent: you were given one task by another agent, which will see only your final message. ' +
  'Do the task with the tools you have, then answer with a complete, self-contained report.';

/** What a subagent's loop uses of the prompt turn it runs in. */
export interface SubagentHost {
  turn: Turn;
  signal: AbortSignal;
  system: string | undefined;
  prompt: PromptTurnDeps;
  /** The turn's pipeline environment (its own events are marked here). */
  env(): PipelineEnv;
  write<T>(fn: () => T): T;
  events: EventLog;
  store: Store;
  budgetHost(): BudgetGateHost;
  fail(code: string, message: string): void;
  stop(reason: TurnStop, status: 'cancelled' | 'failed' | 'interrupted', error: { code: string; message: string }): void;
  takeChanges(toolUseId: string): CallChanges | undefined;
}

function toolUsesOf(content: readonly AssistantBlock[]): ToolUseBlock[] {
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/**
 * The Agent tool: a fresh conversation with the model, the session's tools minus Agent, every
 * call through the pipeline (permissions, hooks, sandbox) with its events marked by the Agent
 * call's id. Its failures are the Agent call's is_error result, never the parent turn's.
 */
export async function runSubagent(h: SubagentHost, parentId: string, task: SubagentTask): Promise<ToolOutput> {
  const parent = { id: parentId };
  const agentId = `agent_${parent.id}`;
  const hooks = await h.prompt.hooks.run(
    'SubagentStart',
    { ...h.prompt.hookBase(), hook_event_name: 'SubagentStart', agent_id: agentId, agent_type: task.type, prompt: task.prompt },
    { stopOnBlock: false, signal: h.signal, onRun: (r) => h.prompt.onHookRun(r, parent.id) },
  );
  const sid = h.turn.session_id;
  const mark = { parent_tool_use_id: parent.id };
  const base = h.env();
  const env: PipelineEnv = {
    ...base,
    onStarted: (call, input) =>
      h.write(() => h.events.emit(sid, { type: 'tool.started', turn_id: h.turn.id, ...mark, tool_use_id: call.id, tool: call.name, input })),
    onProgress: (call, chunk) =>
      h.events.emit(sid, { type: 'tool.progress', turn_id: h.turn.id, ...mark, tool_use_id: call.id, chunk }),
  };
  const tools = h.prompt.tools().filter((t) => t.name !== 'Agent');
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: task.prompt }, ...hooks.additionalContext.map((text) => ({ type: 'text' as const, text }))] },
  ];
  const system = [SUBAGENT_SYSTEM, h.system].filter((x) => x !== undefined).join('\n\n');
  const seen = new Set<string>();
  for (let calls = 0; ; calls++) {
    if (calls >= h.prompt.model.maxTurns) {
      return textOutput(`The subagent reached max_turns (${h.prompt.model.maxTurns} model calls) before it finished its task.`, true);
    }
    const inputChars = JSON.stringify(messages).length + system.length + JSON.stringify(tools).length;
    // Its spending counts toward the turn's budgets; nobody is asked from inside it.
    const gate = await budgetGate(h.budgetHost(), inputChars, { canAsk: false, who: `the subagent of ${parent.id}` });
    if (!gate.go) {
      h.fail('budget_exceeded', gate.message);
      return textOutput(`Stopped: ${gate.message}`, true);
    }
    let response: ModelResponse;
    try {
      response = await h.prompt.subagentProvider.complete({ system, messages, tools, maxTokens: h.prompt.model.maxTokens, ...requestOptions(h.prompt.model), signal: h.signal });
    } catch (err) {
      if (err instanceof ProviderError) return textOutput(`The subagent's model call failed: ${err.message}`, true);
      throw err;
    }
    const usage = h.store.transaction(() => h.prompt.spending.record(h.turn, response.usage, response.usageReported !== false, inputChars));
    const content = response.content.map((b) => {
      if (b.type !== 'tool_use') return b;
      let id = b.id;
      for (let n = 2; seen.has(id) || id === ''; n++) id = `${b.id || 'toolu'}_${n}`;
      seen.add(id);
      return { ...b, id };
    });
    const message: Message = { role: 'assistant', content };
    messages.push(message);
    h.events.emit(sid, {
      type: 'message.completed',
      turn_id: h.turn.id,
      ...mark,
      message_index: messages.length - 1,
      message: structuredClone(message),
      stop_reason: response.stopReason,
      usage,
    });
    const uses = toolUsesOf(content);
    if (uses.length === 0 && response.stopReason === 'pause_turn') continue;
    if (uses.length === 0) {
      const answer = content.filter((b): b is TextBlock => b.type === 'text').map((b) => b.text).join('\n');
      // SubagentStop: the subagent is done; its answer is about to become the Agent call's result.
      await h.prompt.hooks.run(
        'SubagentStop',
        { ...h.prompt.hookBase(), hook_event_name: 'SubagentStop', agent_id: agentId, agent_type: task.type, stop_hook_active: false, last_assistant_message: answer },
        { stopOnBlock: false, signal: h.signal, onRun: (r) => h.prompt.onHookRun(r, parent.id) },
      );
      return textOutput(answer || '(The subagent finished without an answer.)');
    }
    const results = new Map<string, ToolResult>();
    for (const u of uses) {
      h.signal.throwIfAborted();
      let result;
      if (u.input_error !== undefined) result = errorResult(u.id, `The input of this ${u.name} call could not be used: ${u.input_error}.`);
      else if (u.name === 'Agent') result = errorResult(u.id, 'A subagent cannot start subagents.');
      else {
        const outcome = await execOne({ id: u.id, name: u.name, input: u.input }, env);
        result = outcome.result;
        if (outcome.interrupt || outcome.stopTurn) {
          // The person (or a hook) stopped the work: the parent turn stops too.
          const why = outcome.interrupt ? `the user denied ${u.name} in the subagent and interrupted the turn` : `hook ${outcome.stopTurn!.hook} stopped the turn: ${outcome.stopTurn!.reason}`;
          emitCompleted(h, sid, mark, u, result);
          h.stop(new TurnStop(why, 'interrupt'), 'cancelled', {
            code: outcome.interrupt ? 'interrupted' : 'stopped_by_hook',
            message: `In the subagent of ${parent.id}, ${why}.`,
          });
          return textOutput(`Stopped: ${why}.`, true);
        }
      }
      results.set(u.id, result);
      emitCompleted(h, sid, mark, u, result);
    }
    messages.push({ role: 'user', content: uses.map((u) => toModelResult(u.id, results.get(u.id))) });
  }
}

/** A subagent's call ended: its tool.completed, with what it changed in the workspace. */
function emitCompleted(h: SubagentHost, sid: string, mark: { parent_tool_use_id: string }, u: { id: string; name: string }, result: ToolResult): void {
  const changes = h.takeChanges(u.id);
  h.events.emit(sid, { type: 'tool.completed', turn_id: h.turn.id, ...mark, tool_use_id: u.id, tool: u.name, result, ...(changes ? { changes } : {}) });
}
