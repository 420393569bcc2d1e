// One compaction of a prompt session's conversation, cheapest first (compaction.ts says how each
// stage changes it): PreCompact hooks (a block stops it; their context joins the instructions),
// then old tool results left out, and only when that is not enough, the older messages summarised
// by the session's own model (retried once; its cost counted like any call's, its budget checked
// first), the newest messages kept verbatim. The result must be smaller by MIN_SHRINK or it
// counts as a failure: a compaction that does not shrink is how peers' loops spiral. Events
// `compaction.started`, then `compaction.completed` or `compaction.failed`; PostCompact after.
import type { Compaction } from '../contract/compaction.js';
import type { Turn } from '../contract/schemas.js';
import type { EventLog } from '../events/log.js';
import type { HookInput, HookRegistry, HookRunRecord } from '../hooks/registry.js';
import type { Clock, IdFactory } from '../ids.js';
import { ProviderError, type Message, type ModelProvider, type TextBlock } from '../model/provider.js';
import type { Store } from '../store/store.js';
import type { GateOutcome } from './budget-gate.js';
import { chooseCut, elideResults, renderTranscript, sha256, SUMMARY_SYSTEM, summaryMessage } from './compaction.js';
import type { Spending } from './spending.js';

/** A compaction must leave at most this share of the tokens it started with. */
export const MIN_SHRINK = 0.8;
/** Compactions one turn may make; past it the turn fails with context_exhausted. */
export const MAX_COMPACTIONS_PER_TURN = 20;
/** Compactions with no model call between them (the threshold's, then an overflow's); a third is a spiral. */
export const MAX_COMPACTIONS_WITHOUT_PROGRESS = 2;
/** The longest summary asked for, in tokens. */
const SUMMARY_MAX_TOKENS = 4096;

export type CompactionTrigger = Compaction['trigger'];

export interface CompactorDeps {
  sessionId: string;
  provider: ModelProvider;
  maxTokens: number;
  /** The model's context window in tokens, when known. */
  contextWindow: number | null;
  spending: Spending;
  hooks: HookRegistry;
  hookBase: () => Omit<HookInput, 'hook_event_name'>;
  onHookRun: (record: HookRunRecord) => void;
  events: EventLog;
  store: Store;
  clock: Clock;
  newId: IdFactory;
}

export interface CompactRequest {
  /** The conversation as the next call would send it (consecutive messages not yet merged). */
  conversation: Message[];
  trigger: CompactionTrigger;
  /** Characters every call sends besides the conversation (system prompt, tool schemas). */
  overheadChars: number;
  threshold: number;
  /** The turn it happens in (its usage counts the summary's call); null between turns. */
  turn: Turn | null;
  /** The budget check before the summary's model call. */
  gate: (inputChars: number) => Promise<GateOutcome>;
  instructions?: string;
  signal: AbortSignal;
}

export type CompactOutcome =
  | { ok: true; messages: Message[]; facts: Omit<Compaction, 'id' | 'covers' | 'messages' | 'created_at'>; id: string; summary: string | null }
  | { ok: false; reason: string; nothing?: true };

export class Compactor {
  constructor(private readonly d: CompactorDeps) {}

  /** Estimated input tokens of a call sending `messages`. */
  tokens(messages: readonly Message[], overheadChars: number): number {
    return this.d.spending.inputEstimate(JSON.stringify(messages).length + overheadChars);
  }

  /** Whether a call of `inputChars` characters passes the threshold of a known window. */
  over(inputChars: number, threshold: number): boolean {
    return this.d.contextWindow !== null && this.d.spending.inputEstimate(inputChars) > threshold * this.d.contextWindow;
  }

  async compact(r: CompactRequest): Promise<CompactOutcome> {
    const id = this.d.newId('cmp');
    const turnId = r.turn?.id ?? null;
    const before = this.tokens(r.conversation, r.overheadChars);
    const emit = (event: Parameters<EventLog['emit']>[1]) => this.d.store.transaction(() => this.d.events.emit(this.d.sessionId, event));
    emit({ type: 'compaction.started', turn_id: turnId, compaction_id: id, trigger: r.trigger, tokens_before: before });
    const failed = (reason: string, nothing?: true): CompactOutcome => {
      emit({ type: 'compaction.failed', turn_id: turnId, compaction_id: id, trigger: r.trigger, tokens_before: before, reason });
      return { ok: false, reason, ...(nothing ? { nothing } : {}) };
    };

    const pre = await this.d.hooks.run(
      'PreCompact',
      { ...this.d.hookBase(), hook_event_name: 'PreCompact', trigger: r.trigger === 'manual' ? 'manual' : 'auto', custom_instructions: r.instructions ?? null },
      { stopOnBlock: true, signal: r.signal, onRun: this.d.onHookRun },
    );
    if (r.signal.aborted) return { ok: false, reason: 'the turn was cancelled' };
    if (pre.blocked) return failed(`a PreCompact hook refused it: ${pre.blocked.reason}`);
    const instructions = [...(r.instructions ? [r.instructions] : []), ...pre.additionalContext];

    const window = this.d.contextWindow;
    // Half the threshold of what has to fit: the window, or the conversation itself when it is
    // smaller (on demand) or when the provider refused it (its window is smaller than believed).
    const basis = window === null ? before : Math.min(window, before);
    const target = Math.floor(0.5 * r.threshold * basis);
    const perMessage = (m: Message) => this.tokens([m], 0);
    const cut = chooseCut(r.conversation, perMessage, Math.floor(target / 2));
    if (cut === 0) return failed('there is nothing to compact: the conversation is one exchange that cannot be cut without parting a tool call from its result', true);
    const older = r.conversation.slice(0, cut);
    const recent = r.conversation.slice(cut);

    // The cheap stage: old tool results left out.
    const elided = elideResults(older);
    let messages = [...elided.messages, ...recent];
    let stage: Compaction['stage'] = 'elided';
    let summaryText: string | null = null;
    if (this.tokens(messages, r.overheadChars) > target || r.trigger === 'manual') {
      const summary = await this.summarise(elided.messages, instructions, r);
      if (!summary.ok) return failed(summary.reason);
      messages = [summaryMessage(summary.text), ...recent];
      stage = 'summarised';
      summaryText = summary.text;
    }
    const after = this.tokens(messages, r.overheadChars);
    if (after > before * MIN_SHRINK) {
      return failed(`it left ${after} of ${before} tokens; a compaction must remove at least ${Math.round((1 - MIN_SHRINK) * 100)}%`);
    }
    const facts = {
      trigger: r.trigger,
      stage,
      tokens_before: before,
      tokens_after: after,
      elided_results: elided.elided,
      summarised_messages: stage === 'summarised' ? older.length : 0,
      kept_messages: recent.length,
      summary_sha256: summaryText === null ? null : sha256(summaryText),
    };
    return { ok: true, id, messages, facts, summary: summaryText };
  }

  /** After the caller stored the compaction: its event and PostCompact. */
  async completed(outcome: Extract<CompactOutcome, { ok: true }>, turnId: string | null, signal: AbortSignal): Promise<void> {
    await this.d.hooks.run(
      'PostCompact',
      {
        ...this.d.hookBase(),
        hook_event_name: 'PostCompact',
        trigger: outcome.facts.trigger === 'manual' ? 'manual' : 'auto',
        compact_summary: outcome.summary,
        tokens_before: outcome.facts.tokens_before,
        tokens_after: outcome.facts.tokens_after,
        ...(turnId ? { turn_id: turnId } : {}),
      },
      { stopOnBlock: false, signal, onRun: this.d.onHookRun },
    );
  }

  /** The older messages summarised by the model: one retry, then the reason it failed. */
  private async summarise(older: Message[], instructions: string[], r: CompactRequest): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
    const window = this.d.contextWindow;
    // The transcript fits the window with room for the answer, whatever the conversation's size.
    const maxTokens = Math.min(this.d.maxTokens, SUMMARY_MAX_TOKENS);
    const budgetTokens = window !== null ? Math.max(1024, Math.floor(window * 0.6) - maxTokens) : 100_000;
    const rendered = renderTranscript(older, Math.floor(budgetTokens * this.d.spending.charsPerToken));
    const ask = [
      'Here is the earlier part of the conversation to summarise:',
      '<transcript>',
      rendered,
      '</transcript>',
      ...(instructions.length > 0 ? ['Also follow these instructions for the summary:', ...instructions] : []),
      'Write the summary now.',
    ].join('\n');
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: ask }] }];
    let last = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      const inputChars = ask.length + SUMMARY_SYSTEM.length;
      const gate = await r.gate(inputChars);
      if (!gate.go) return { ok: false, reason: gate.message };
      try {
        const response = await this.d.provider.complete({ system: SUMMARY_SYSTEM, messages, tools: [], maxTokens, signal: r.signal });
        this.d.store.transaction(() => this.d.spending.record(r.turn, response.usage, response.usageReported !== false, inputChars));
        const text = response.content.filter((b): b is TextBlock => b.type === 'text').map((b) => b.text).join('\n').trim();
        if (text !== '') return { ok: true, text };
        last = 'the model answered with no summary';
      } catch (err) {
        if (r.signal.aborted) return { ok: false, reason: 'the turn was cancelled' };
        if (!(err instanceof ProviderError)) throw err;
        last = `the summary's model call failed: ${err.message}`;
      }
    }
    return { ok: false, reason: `${last} (twice)` };
  }
}
