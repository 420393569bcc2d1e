// A prompt turn: the server-side model loop. The model answers; its tool_use blocks go through the
// same pipeline as a direct turn's calls (validation, permission and its pause, hooks, sandbox,
// cap); all their tool_results go back in one user message, paired by id, in the order the model
// asked; and again, until the model stops, a hook stops it, `max_turns` is reached or the turn is
// cancelled. The transcript lives on the turn (`messages`) and the next prompt turn continues it.
import type { ToolUse, Turn } from '../contract/schemas.js';
import { errorResult } from '../pipeline/exec-one.js';
import type { SubagentTask, ToolOutput } from '../tools/tool.js';
import { requestOptions } from '../model/index.js';
import {
  ProviderError,
  type AssistantBlock,
  type Message,
  type ModelResponse,
  type ToolUseBlock,
  type UserBlock,
} from '../model/provider.js';
import { closeTranscript, mergeConsecutive, toModelResult } from '../model/transcript.js';
import { TurnRunner, TurnStop, type TurnRunnerDeps } from './turn.js';
import type { PromptTurnDeps } from './prompt-deps.js';
import { budgetGate, type BudgetGateHost } from './budget-gate.js';
import { runSubagent, type SubagentHost } from './subagent.js';
import { emptyUsage } from './spending.js';
import { MAX_COMPACTIONS_PER_TURN, MAX_COMPACTIONS_WITHOUT_PROGRESS, type CompactionTrigger } from './compactor.js';
import { isContextOverflow } from './compaction.js';
import { postToolBatchHooks, stopFailure, stopHooks } from './hook-events.js';
import type { Compaction } from '../contract/compaction.js';

/** The conversation sent to a provider may not pass this many characters (JSON); providers cap far lower. */
export const MAX_TRANSCRIPT_CHARS = 16 * 1024 * 1024;

export type { PromptTurnDeps };

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

  override readonly subagents = (parentId: string, task: SubagentTask): Promise<ToolOutput> => runSubagent(this.subagentHost(), parentId, task);

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
      // Resumed after a restart: the calls of the last assistant message are answered first (a
      // message without calls — paused by the provider, or before a Stop hook — is sent back as it is).
      const last = this.messages.at(-1)!;
      if (last.role === 'assistant' && toolUsesOf(last.content).length > 0) {
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
      // The provider paused a long turn: the paused message, sent back as it is, lets it go on.
      if (response.stopReason === 'pause_turn') continue;
      const stop = await stopHooks(this.prompt, response, continuations > 0, this.signal);
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

  /** The conversation the next call sends: the newest compaction's messages and what came after, or everything. */
  private conversation(): Message[] {
    const c = this.turn.compaction;
    return c ? [...(c.messages as Message[]), ...this.messages.slice(c.covers)] : [...this.prompt.history(), ...this.messages];
  }

  /** One model call; the assistant message is stored with its event. Null when the turn ended. */
  private async callModel(): Promise<ModelResponse | null> {
    const messageIndex = this.messages.length;
    const tools = this.prompt.tools();
    const overhead = (this.system?.length ?? 0) + JSON.stringify(tools).length;
    if (!(await this.fitContext(overhead))) return null;
    let conversation = mergeConsecutive(this.conversation());
    let inputChars = JSON.stringify(conversation).length + overhead;
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
    let response: ModelResponse | undefined;
    for (let overflowed = false; response === undefined; ) {
      try {
        response = await this.prompt.provider.complete({
          ...(this.system !== undefined ? { system: this.system } : {}),
          messages: conversation,
          tools,
          maxTokens: this.prompt.model.maxTokens,
          ...requestOptions(this.prompt.model),
          signal: this.signal,
          onText: (text, index) => {
            if (!this.isFinal()) emitDelta(text, index);
          },
          onThinking: (text, index) => {
            if (!this.isFinal()) this.deps.events.emit(this.turn.session_id, { type: 'thinking.delta', turn_id: this.turn.id, message_index: messageIndex, block_index: index, text });
          },
          onRetry: (info) => {
            this.deps.logger.warn({ session_id: this.turn.session_id, turn_id: this.turn.id, ...info }, 'model call retried');
            if (!this.isFinal()) emitDelta('', 0, true);
          },
        });
      } catch (err) {
        if (this.isFinal() || this.signal.aborted) return null;
        // The provider says the input does not fit: one compaction and one more try, never a loop.
        if (isContextOverflow(err) && !overflowed && this.prompt.compaction().auto) {
          overflowed = true;
          if (!(await this.compactNow('overflow', overhead, false))) return null;
          conversation = mergeConsecutive(this.conversation());
          inputChars = JSON.stringify(conversation).length + overhead;
          // The summary's call spent too: the retry is checked against the budgets like any call.
          const again = await budgetGate(this.budgetHost(), inputChars, { canAsk: true });
          if (this.isFinal()) return null;
          if (!again.go) {
            this.fail('budget_exceeded', again.message);
            return null;
          }
          continue;
        }
        if (isContextOverflow(err)) {
          const why = overflowed ? 'even after a compaction' : 'and compaction.auto is false (compact it with POST …/compact, or start a new session)';
          this.fail('context_exhausted', `The conversation does not fit the model's context window ${why}: ${(err as Error).message}`);
          return null;
        }
        if (err instanceof ProviderError) {
          this.fail(err.code, `The model call failed (${this.prompt.provider.name} ${this.prompt.provider.model}): ${err.message}`);
          return null;
        }
        throw err;
      }
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
    const ends = uses.length === 0 && response.stopReason !== 'pause_turn' && !this.prompt.hooks.has('Stop');
    this.write(() => {
      // What it cost is counted with the message: the turn, the session and the tenant's day.
      const usage = this.prompt.spending.record(this.turn, response!.usage, response!.usageReported !== false, inputChars);
      this.turn.model_calls! += 1;
      this.compactionsSinceCall = 0;
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
    if (this.isFinal()) return; // beforeFinish closes the transcript
    if (!stored) {
      this.write(() => {
        this.messages.push(this.resultsMessage(uses));
        this.persist();
      });
    }
    await this.postToolBatch(uses);
  }

  /** PostToolBatch: every call of one model response has its result; a hook may add context for the model or stop the loop. */
  private async postToolBatch(uses: ToolUseBlock[]): Promise<void> {
    const hooks = await postToolBatchHooks(this.prompt, uses, this.results, this.signal);
    if (!hooks || this.isFinal()) return;
    if (hooks.additionalContext.length > 0) {
      this.write(() => {
        this.messages.push({ role: 'user', content: hooks.additionalContext.map((text) => ({ type: 'text' as const, text })) });
        this.persist();
      });
    }
    if (hooks.stop) {
      const message = `A PostToolBatch hook stopped the turn (${hooks.stop.hook}): ${hooks.stop.reason}`;
      this.stop(new TurnStop(message, 'interrupt'), 'cancelled', { code: 'stopped_by_hook', message });
    }
  }

  private resultsMessage(uses: ToolUseBlock[]): Message {
    return { role: 'user', content: uses.map((u) => toModelResult(u.id, this.results.get(u.id))) };
  }

  /** What a subagent's loop uses of this turn (subagent.ts). */
  private subagentHost(): SubagentHost {
    return {
      turn: this.turn,
      signal: this.signal,
      system: this.system,
      prompt: this.prompt,
      env: () => super.env(),
      write: (fn) => this.write(fn),
      events: this.deps.events,
      store: this.deps.store,
      budgetHost: () => this.budgetHost(),
      fail: (code, message) => this.fail(code, message),
      stop: (reason, status, error) => this.stop(reason, status, error),
      takeChanges: (id) => this.takeChanges(id),
    };
  }

  /** Compactions this turn made or tried (MAX_COMPACTIONS_PER_TURN), and since its last model call. */
  private compactions = 0;
  private compactionsSinceCall = 0;

  /**
   * Before a call: a conversation past the threshold of the window (or the 16 MiB a call may send)
   * is compacted first, when compaction is automatic. False when the turn ended.
   */
  private async fitContext(overhead: number): Promise<boolean> {
    const settings = this.prompt.compaction();
    const chars = () => JSON.stringify(this.conversation()).length;
    const before = chars();
    if (settings.auto && (before > MAX_TRANSCRIPT_CHARS || this.prompt.compactor.over(before + overhead, settings.threshold))) {
      if (!(await this.compactNow('auto', overhead, before <= MAX_TRANSCRIPT_CHARS))) return false;
    }
    if ((this.turn.compaction ? chars() : before) > MAX_TRANSCRIPT_CHARS) {
      this.fail('context_exhausted', `The conversation is more than the ${MAX_TRANSCRIPT_CHARS} characters of JSON a model call may send${settings.auto ? ', even after a compaction' : ' and compaction.auto is false'}; compact it (POST …/compact) or start a new session.`);
      return false;
    }
    return true;
  }

  /**
   * One compaction in this turn, recorded on it with its event. False when the turn ended: it
   * failed `context_exhausted` (past the bound, or the compaction failed) — unless `tolerant`
   * (the window still has room) and the compaction was refused by a hook or found nothing to do.
   */
  private async compactNow(trigger: CompactionTrigger, overhead: number, tolerant: boolean): Promise<boolean> {
    if (this.compactions >= MAX_COMPACTIONS_PER_TURN || this.compactionsSinceCall >= MAX_COMPACTIONS_WITHOUT_PROGRESS) {
      const bound = this.compactions >= MAX_COMPACTIONS_PER_TURN ? `${MAX_COMPACTIONS_PER_TURN} compactions in this turn (the most one turn makes)` : `${MAX_COMPACTIONS_WITHOUT_PROGRESS} compactions with no model call between them`;
      this.fail('context_exhausted', `The conversation still does not fit after ${bound}; start a new session or rewind.`);
      return false;
    }
    this.compactions++;
    this.compactionsSinceCall++;
    const outcome = await this.prompt.compactor.compact({
      conversation: this.conversation(),
      trigger,
      overheadChars: overhead,
      threshold: this.prompt.compaction().threshold,
      turn: this.turn,
      gate: (chars) => budgetGate(this.budgetHost(), chars, { canAsk: true }),
      signal: this.signal,
    });
    if (this.isFinal()) return false;
    if (!outcome.ok) {
      if (tolerant && (outcome.nothing || outcome.reason.startsWith('a PreCompact hook'))) return true;
      this.fail('context_exhausted', `The conversation had to be compacted (${trigger}) and could not be: ${outcome.reason}.`);
      return false;
    }
    const record: Compaction = { id: outcome.id, ...outcome.facts, covers: this.messages.length, messages: outcome.messages, created_at: this.deps.clock().toISOString() };
    this.write(() => {
      this.turn.compaction = record;
      this.persist();
      this.deps.events.emit(this.turn.session_id, { type: 'compaction.completed', turn_id: this.turn.id, compaction_id: record.id, ...outcome.facts });
    });
    await this.prompt.compactor.completed(outcome, this.turn.id, this.signal);
    return !this.isFinal();
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
      notify: (message) => this.prompt.notify('budget_near', message),
      warned: new Set(),
    });
  }

  private fail(code: string, message: string): void {
    const failing = !this.isFinal();
    this.stop(new TurnStop(message, 'cancel'), 'failed', { code, message });
    if (failing && this.turn.status === 'failed') stopFailure(this.deps.env, this.turn.id, this.deps.env.permissionContext().mode, { code, message });
  }

  /** Whatever ended the turn, an assistant message's calls are followed by their results. */
  protected override beforeFinish(): void {
    this.turn.messages = closeTranscript(this.messages, this.results);
  }
}

function toolUsesOf(content: readonly AssistantBlock[]): ToolUseBlock[] {
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

