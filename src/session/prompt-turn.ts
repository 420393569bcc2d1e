// A prompt turn: the server-side model loop. The model answers; its tool_use blocks go through the
// same pipeline as a direct turn's calls (validation, permission and its pause, hooks, sandbox,
// cap); all their tool_results go back in one user message, paired by id, in the order the model
// asked; and again, until the model stops, a hook stops it, `max_turns` is reached or the turn is
// cancelled. The transcript lives on the turn (`messages`) and the next prompt turn continues it.
import type { ToolResult, ToolUse, Turn } from '../contract/schemas.js';
import type { HookInput, HookRegistry } from '../hooks/registry.js';
import type { HookRunRecord } from '../hooks/registry.js';
import { errorResult, execOne, type PipelineEnv, type ToolCall } from '../pipeline/exec-one.js';
import { textOutput, type SubagentTask, type ToolOutput } from '../tools/tool.js';
import type { ResolvedModel } from '../model/index.js';
import {
  ProviderError,
  type AssistantBlock,
  type Message,
  type ModelProvider,
  type ModelResponse,
  type ModelToolSpec,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  type UserBlock,
} from '../model/provider.js';
import { closeTranscript, mergeConsecutive, toModelResult } from '../model/transcript.js';
import { TurnRunner, TurnStop, type TurnRunnerDeps } from './turn.js';
import { budgetGate, type BudgetGateHost } from './budget-gate.js';
import { emptyUsage, type Spending } from './spending.js';

/** The conversation sent to a provider may not pass this many characters (JSON); providers cap far lower. */
export const MAX_TRANSCRIPT_CHARS = 16 * 1024 * 1024;

export interface PromptTurnDeps {
  provider: ModelProvider;
  /** What model calls cost, against the turn's, session's and tenant's budgets. */
  spending: Spending;
  /** A person raised the session's budget (its `Budget` request's updated limit). */
  raiseSessionBudget: (unit: 'usd' | 'tokens', limit: number) => void;
  /** The provider subagents (the Agent tool) talk to. */
  subagentProvider: ModelProvider;
  model: ResolvedModel;
  /** The system prompt, made once when the turn starts (or resumes): the session's own plus its instruction files. */
  system: () => Promise<string | undefined>;
  /** The session's earlier prompt turns' messages, oldest first. */
  history: () => Message[];
  /** The tools as exposed to the model (the registry's exposed list). */
  tools: () => ModelToolSpec[];
  hooks: HookRegistry;
  hookBase: () => Omit<HookInput, 'hook_event_name'>;
  onHookRun: (record: HookRunRecord, toolUseId?: string) => void;
}

const SUBAGENT_SYSTEM =
  'You are a subagent: you were given one task by another agent, which will see only your final message. ' +
  'Do the task with the tools you have, then answer with a complete, self-contained report.';

export class PromptTurnRunner extends TurnRunner {
  constructor(
    turn: Turn,
    deps: TurnRunnerDeps,
    private readonly prompt: PromptTurnDeps,
  ) {
    super(turn, deps);
    turn.messages ??= [];
    turn.usage ??= emptyUsage();
    turn.model_calls ??= 0;
  }

  override readonly subagents = (parentId: string, task: SubagentTask): Promise<ToolOutput> => this.runSubagent(parentId, task);

  private get messages(): Message[] {
    return this.turn.messages as Message[];
  }

  /** This turn's system prompt (see PromptTurnDeps.system). */
  private system: string | undefined;

  protected override async body(): Promise<void> {
    this.system = await this.prompt.system();
    if (this.isFinal()) return;
    if (this.messages.length === 0) {
      if (!(await this.submitPrompt())) return;
    } else {
      // Resumed after a restart: the calls of the last assistant message are answered first.
      const last = this.messages.at(-1)!;
      if (last.role === 'assistant') {
        await this.answer(toolUsesOf(last.content));
        if (this.isFinal()) return;
      }
    }
    let continuations = 0;
    for (;;) {
      if (this.isFinal()) return;
      if (this.turn.model_calls! >= this.prompt.model.maxTurns) {
        this.fail('max_turns', `The turn reached max_turns (${this.prompt.model.maxTurns} model calls) before the model finished.`);
        return;
      }
      const response = await this.callModel();
      if (!response || this.isFinal()) return;
      const uses = toolUsesOf(response.content);
      if (uses.length > 0) {
        await this.answer(uses);
        continue;
      }
      const stop = await this.runStopHooks(response, continuations > 0);
      if (this.isFinal()) return;
      if (stop.kind === 'continue') {
        continuations++;
        this.deps.store.transaction(() => {
          this.messages.push({ role: 'user', content: [{ type: 'text', text: stop.reason }] });
          this.persist();
        });
        continue;
      }
      this.turn.stop_reason = stop.kind === 'hard' ? 'stop_hook' : response.stopReason;
      this.finish('completed');
      return;
    }
  }

  /** UserPromptSubmit, then the user message. False when a hook refused the prompt. */
  private async submitPrompt(): Promise<boolean> {
    const promptBlocks = this.turn.prompt ?? [];
    const text = promptBlocks.map((b) => b.text).join('\n\n');
    const hooks = await this.prompt.hooks.run(
      'UserPromptSubmit',
      { ...this.prompt.hookBase(), hook_event_name: 'UserPromptSubmit', prompt: text },
      { stopOnBlock: true, signal: this.signal, onRun: this.prompt.onHookRun },
    );
    if (this.isFinal()) return false;
    if (hooks.blocked) {
      this.fail('prompt_blocked', `A UserPromptSubmit hook refused the prompt: ${hooks.blocked.reason}`);
      return false;
    }
    if (hooks.stop) {
      this.fail('stopped_by_hook', `A UserPromptSubmit hook stopped the turn (${hooks.stop.hook}): ${hooks.stop.reason}`);
      return false;
    }
    const content: UserBlock[] = [...promptBlocks.map((b) => ({ type: 'text' as const, text: b.text }))];
    for (const context of hooks.additionalContext) content.push({ type: 'text', text: context });
    this.deps.store.transaction(() => {
      this.messages.push({ role: 'user', content });
      this.persist();
    });
    return true;
  }

  /** One model call; the assistant message is stored with its event. Null when the turn ended. */
  private async callModel(): Promise<ModelResponse | null> {
    const messageIndex = this.messages.length;
    const conversation = mergeConsecutive([...this.prompt.history(), ...this.messages]);
    const size = JSON.stringify(conversation).length;
    if (size > MAX_TRANSCRIPT_CHARS) {
      this.fail('context_too_large', `The conversation is ${size} characters of JSON, more than the ${MAX_TRANSCRIPT_CHARS} a model call may send; start a new session.`);
      return null;
    }
    const tools = this.prompt.tools();
    const inputChars = size + (this.system?.length ?? 0) + JSON.stringify(tools).length;
    const gate = await budgetGate(this.budgetHost(), inputChars, { canAsk: true });
    if (this.isFinal()) return null;
    if (!gate.go) {
      this.fail('budget_exceeded', gate.message);
      return null;
    }
    const emitDelta = (text: string, blockIndex: number, reset?: boolean) =>
      this.deps.events.emit(this.turn.session_id, {
        type: 'message.delta',
        turn_id: this.turn.id,
        message_index: messageIndex,
        block_index: blockIndex,
        text,
        ...(reset ? { reset: true } : {}),
      });
    let response: ModelResponse;
    try {
      response = await this.prompt.provider.complete({
        ...(this.system !== undefined ? { system: this.system } : {}),
        messages: conversation,
        tools,
        maxTokens: this.prompt.model.maxTokens,
        signal: this.signal,
        onText: (text, index) => {
          if (!this.isFinal()) emitDelta(text, index);
        },
        onRetry: (info) => {
          this.deps.logger.warn({ session_id: this.turn.session_id, turn_id: this.turn.id, ...info }, 'model call retried');
          if (!this.isFinal()) emitDelta('', 0, true);
        },
      });
    } catch (err) {
      if (this.isFinal() || this.signal.aborted) return null;
      if (err instanceof ProviderError) {
        this.fail(err.code, `The model call failed (${this.prompt.provider.name} ${this.prompt.provider.model}): ${err.message}`);
        return null;
      }
      throw err;
    }
    if (this.isFinal()) return null;

    // Ids are unique within the turn (a model may repeat one, a script may too).
    const taken = new Set(this.turn.tool_uses.map((t) => t.id));
    const content: AssistantBlock[] = response.content.map((b) => {
      if (b.type !== 'tool_use') return b;
      let id = b.id;
      for (let n = 2; taken.has(id) || id === ''; n++) id = `${b.id || 'toolu'}_${n}`;
      taken.add(id);
      return { ...b, id };
    });
    const uses = toolUsesOf(content);
    const message: Message = { role: 'assistant', content };
    // The model's last answer, when no Stop hook may keep it going, ends the turn in the same commit.
    const ends = uses.length === 0 && !this.prompt.hooks.has('Stop');
    this.write(() => {
      // What it cost is counted with the message: the turn, the session and the tenant's day.
      const usage = this.prompt.spending.record(this.turn, response.usage, response.usageReported !== false, inputChars);
      this.turn.model_calls! += 1;
      this.messages.push(message);
      this.turn.tool_uses.push(...uses.map((u): ToolUse => ({ type: 'tool_use', id: u.id, name: u.name, input: u.input })));
      this.persist();
      this.deps.events.emit(this.turn.session_id, {
        type: 'message.completed',
        turn_id: this.turn.id,
        message_index: messageIndex,
        message: structuredClone(message),
        stop_reason: response.stopReason,
        usage,
      });
      if (ends) {
        this.turn.stop_reason = response.stopReason;
        this.finish('completed');
      }
    });
    return { ...response, content };
  }

  /** Runs the calls of one assistant message, then stores the user message of their results. */
  private async answer(uses: ToolUseBlock[]): Promise<void> {
    const runnable: ToolUse[] = [];
    for (const u of uses) {
      if (this.results.has(u.id)) continue;
      if (u.input_error !== undefined) {
        // Never run: the model gets the parse error and can send the call again.
        this.recordResult(
          { id: u.id, name: u.name, input: u.input },
          errorResult(u.id, `The input of this ${u.name} call could not be used: ${u.input_error}. Send the call again with a JSON object that matches the tool's input schema.`),
        );
      } else runnable.push({ type: 'tool_use', id: u.id, name: u.name, input: u.input });
    }
    // The message of results is stored with the last result when a call gives it (one commit).
    let stored = false;
    await this.runCalls(runnable, {
      withLast: () => {
        this.messages.push(this.resultsMessage(uses));
        this.persist();
        stored = true;
      },
    });
    if (this.isFinal() || stored) return; // beforeFinish closes the transcript
    this.write(() => {
      this.messages.push(this.resultsMessage(uses));
      this.persist();
    });
  }

  private resultsMessage(uses: ToolUseBlock[]): Message {
    return { role: 'user', content: uses.map((u) => toModelResult(u.id, this.results.get(u.id))) };
  }

  /** Stop hooks: a block keeps the model going with the reason; `continue: false` ends the turn now. */
  private async runStopHooks(
    response: ModelResponse,
    active: boolean,
  ): Promise<{ kind: 'done' } | { kind: 'hard' } | { kind: 'continue'; reason: string }> {
    const text = response.content
      .filter((b): b is TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('\n');
    const hooks = await this.prompt.hooks.run(
      'Stop',
      { ...this.prompt.hookBase(), hook_event_name: 'Stop', stop_hook_active: active, last_assistant_message: text },
      { stopOnBlock: false, collectBlock: true, signal: this.signal, onRun: this.prompt.onHookRun },
    );
    if (hooks.stop) return { kind: 'hard' };
    if (hooks.blocked) return { kind: 'continue', reason: hooks.blocked.reason };
    return { kind: 'done' };
  }

  /**
   * The Agent tool: a fresh conversation with the model, the session's tools minus Agent, every
   * call through the pipeline (permissions, hooks, sandbox) with its events marked by the Agent
   * call's id. Its failures are the Agent call's is_error result, never the parent turn's.
   */
  private async runSubagent(parentId: string, task: SubagentTask): Promise<ToolOutput> {
    const parent = { id: parentId };
    const agentId = `agent_${parent.id}`;
    const hooks = await this.prompt.hooks.run(
      'SubagentStart',
      { ...this.prompt.hookBase(), hook_event_name: 'SubagentStart', agent_id: agentId, agent_type: task.type, prompt: task.prompt },
      { stopOnBlock: false, signal: this.signal, onRun: (r) => this.prompt.onHookRun(r, parent.id) },
    );
    const sid = this.turn.session_id;
    const mark = { parent_tool_use_id: parent.id };
    const base = super.env();
    const env: PipelineEnv = {
      ...base,
      onStarted: (call, input) =>
        this.write(() => this.deps.events.emit(sid, { type: 'tool.started', turn_id: this.turn.id, ...mark, tool_use_id: call.id, tool: call.name, input })),
      onProgress: (call, chunk) =>
        this.deps.events.emit(sid, { type: 'tool.progress', turn_id: this.turn.id, ...mark, tool_use_id: call.id, chunk }),
    };
    const tools = this.prompt.tools().filter((t) => t.name !== 'Agent');
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: task.prompt }, ...hooks.additionalContext.map((text) => ({ type: 'text' as const, text }))] },
    ];
    const system = [SUBAGENT_SYSTEM, this.system].filter((x) => x !== undefined).join('\n\n');
    const seen = new Set<string>();
    for (let calls = 0; ; calls++) {
      if (calls >= this.prompt.model.maxTurns) {
        return textOutput(`The subagent reached max_turns (${this.prompt.model.maxTurns} model calls) before it finished its task.`, true);
      }
      const inputChars = JSON.stringify(messages).length + system.length + JSON.stringify(tools).length;
      // Its spending counts toward the turn's budgets; nobody is asked from inside it.
      const gate = await budgetGate(this.budgetHost(), inputChars, { canAsk: false, who: `the subagent of ${parent.id}` });
      if (!gate.go) {
        this.fail('budget_exceeded', gate.message);
        return textOutput(`Stopped: ${gate.message}`, true);
      }
      let response: ModelResponse;
      try {
        response = await this.prompt.subagentProvider.complete({ system, messages, tools, maxTokens: this.prompt.model.maxTokens, signal: this.signal });
      } catch (err) {
        if (err instanceof ProviderError) return textOutput(`The subagent's model call failed: ${err.message}`, true);
        throw err;
      }
      const usage = this.deps.store.transaction(() => this.prompt.spending.record(this.turn, response.usage, response.usageReported !== false, inputChars));
      const content = response.content.map((b) => {
        if (b.type !== 'tool_use') return b;
        let id = b.id;
        for (let n = 2; seen.has(id) || id === ''; n++) id = `${b.id || 'toolu'}_${n}`;
        seen.add(id);
        return { ...b, id };
      });
      const message: Message = { role: 'assistant', content };
      messages.push(message);
      this.deps.events.emit(sid, {
        type: 'message.completed',
        turn_id: this.turn.id,
        ...mark,
        message_index: messages.length - 1,
        message: structuredClone(message),
        stop_reason: response.stopReason,
        usage,
      });
      const uses = toolUsesOf(content);
      if (uses.length === 0) {
        const answer = content.filter((b): b is TextBlock => b.type === 'text').map((b) => b.text).join('\n');
        return textOutput(answer || '(The subagent finished without an answer.)');
      }
      const results = new Map<string, ToolResult>();
      for (const u of uses) {
        this.signal.throwIfAborted();
        let result;
        if (u.input_error !== undefined) result = errorResult(u.id, `The input of this ${u.name} call could not be used: ${u.input_error}.`);
        else if (u.name === 'Agent') result = errorResult(u.id, 'A subagent cannot start subagents.');
        else {
          const outcome = await execOne({ id: u.id, name: u.name, input: u.input }, env);
          result = outcome.result;
          if (outcome.interrupt || outcome.stopTurn) {
            // The person (or a hook) stopped the work: the parent turn stops too.
            const why = outcome.interrupt ? `the user denied ${u.name} in the subagent and interrupted the turn` : `hook ${outcome.stopTurn!.hook} stopped the turn: ${outcome.stopTurn!.reason}`;
            this.emitCompleted(sid, mark, u, result);
            this.stop(new TurnStop(why, 'interrupt'), 'cancelled', {
              code: outcome.interrupt ? 'interrupted' : 'stopped_by_hook',
              message: `In the subagent of ${parent.id}, ${why}.`,
            });
            return textOutput(`Stopped: ${why}.`, true);
          }
        }
        results.set(u.id, result);
        this.emitCompleted(sid, mark, u, result);
      }
      messages.push({ role: 'user', content: uses.map((u) => toModelResult(u.id, results.get(u.id))) });
    }
  }

  /** A subagent's call ended: its tool.completed, with what it changed in the workspace. */
  private emitCompleted(sid: string, mark: { parent_tool_use_id: string }, u: { id: string; name: string }, result: ToolResult): void {
    const changes = this.takeChanges(u.id);
    this.deps.events.emit(sid, { type: 'tool.completed', turn_id: this.turn.id, ...mark, tool_use_id: u.id, tool: u.name, result, ...(changes ? { changes } : {}) });
  }

  private gateHost: BudgetGateHost | undefined;

  /** What the budget check before each model call works with (budget-gate.ts). */
  private budgetHost(): BudgetGateHost {
    return (this.gateHost ??= {
      turn: this.turn,
      spending: this.prompt.spending,
      mode: () => this.deps.env.permissionContext().mode,
      ask: (request, reevaluate) => this.deps.env.awaitApproval(request, this.signal, reevaluate),
      recordDecision: (note) => this.recordDecision(note),
      raise: (scope, unit, limit) => {
        const key = unit === 'usd' ? 'max_usd' : 'max_tokens';
        if (scope === 'session') return this.prompt.raiseSessionBudget(unit, limit);
        this.write(() => {
          this.turn.budget = { ...this.turn.budget, [key]: limit };
          this.persist();
        });
      },
      pastForTurn: new Set(),
    });
  }

  private fail(code: string, message: string): void {
    this.stop(new TurnStop(message, 'cancel'), 'failed', { code, message });
  }

  /** Whatever ended the turn, an assistant message's calls are followed by their results. */
  protected override beforeFinish(): void {
    this.turn.messages = closeTranscript(this.messages, this.results);
  }
}

function toolUsesOf(content: readonly AssistantBlock[]): ToolUseBlock[] {
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

