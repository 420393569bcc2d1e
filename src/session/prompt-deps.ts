// What a prompt turn's model loop is given (runner.ts makes it): the providers, what calls cost,
// the compactor, the earlier conversation, the tools, the hooks. Apart from prompt-turn.ts so the
// modules the loop uses (subagent.ts, hook-events.ts) can name it without importing the loop.
import type { HookInput, HookRegistry, HookRunRecord } from '../hooks/registry.js';
import type { ResolvedModel } from '../model/index.js';
import type { Message, ModelProvider, ModelToolSpec } from '../model/provider.js';
import type { Compactor } from './compactor.js';
import type { Spending } from './spending.js';

export interface PromptTurnDeps {
  provider: ModelProvider;
  /** What model calls cost, against the turn's, session's and tenant's budgets. */
  spending: Spending;
  /** Compacts the conversation (compactor.ts). */
  compactor: Compactor;
  /** Tells Notification hooks (nothing waits for them). */
  notify: (type: 'budget_near', message: string) => void;
  /** The session's compaction settings as in force. */
  compaction: () => { auto: boolean; threshold: number };
  /** A person raised the session's budget (its `Budget` request's updated limit). */
  raiseSessionBudget: (unit: 'usd' | 'tokens', limit: number) => void;
  /** The provider subagents (the Agent tool) talk to. */
  subagentProvider: ModelProvider;
  model: ResolvedModel;
  /** The system prompt, made once when the turn starts (or resumes): the session's own plus its instruction files. */
  system: () => Promise<string | undefined>;
  /** The conversation of the session's earlier prompt turns, oldest first, compaction applied. */
  history: () => Message[];
  /** The tools as exposed to the model (the registry's exposed list). */
  tools: () => ModelToolSpec[];
  hooks: HookRegistry;
  hookBase: () => Omit<HookInput, 'hook_event_name'>;
  onHookRun: (record: HookRunRecord, toolUseId?: string) => void;
}
