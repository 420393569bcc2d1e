// The check before each model call of a prompt turn (spending.ts says what is counted). A limit
// the call would pass becomes a permission request `tool: "Budget"` through the one broker: the
// turn waits, as for any ask, until a person allows it (the next call goes on; with
// `updated_input.limit` the turn's or session's limit is raised), denies it, or the timeout
// does. The tenant's daily limit is the operator's: only a policy that raises it (a reload of the
// keys file decides the waiting request again) lets the turn go on; people and hooks cannot.
// Where nobody can be asked — dontAsk and auto, a subagent's own loop, a limit that cannot be
// kept because the model has no price — the turn ends with `budget_exceeded`.
import type { BudgetAsk, BudgetScope } from '../contract/budget.js';
import type { PermissionMode, Turn } from '../contract/schemas.js';
import type { ApprovalAnswer, ApprovalRequest, Reevaluate } from '../interaction/kinds.js';
import { inputDigest, type DecisionNote } from '../pipeline/exec-one.js';
import type { BudgetReached, Spending } from './spending.js';

export const BUDGET_TOOL = 'Budget';

export interface BudgetGateHost {
  readonly turn: Turn;
  readonly spending: Spending;
  /** The session's permission mode as in force. */
  mode(): PermissionMode;
  ask(request: ApprovalRequest, reevaluate: Reevaluate): Promise<ApprovalAnswer>;
  recordDecision(note: DecisionNote): void;
  /** A person raised the turn's or the session's limit. */
  raise(scope: 'turn' | 'session', unit: 'usd' | 'tokens', limit: number): void;
  /** Tells Notification hooks that a budget is near (once per scope and unit in a turn). */
  notify(message: string): void;
  readonly warned: Set<string>;
}

/** The share of a limit spent past which Notification hooks are told the budget is near. */
export const NEAR_SHARE = 0.8;

export type GateOutcome = { go: true } | { go: false; message: string };

const UNASKABLE: ReadonlySet<PermissionMode> = new Set(['dontAsk', 'auto']);

/** Before a model call of `inputChars` characters: whether it may go, asking a person when one may be asked. */
export async function budgetGate(host: BudgetGateHost, inputChars: number, opts: { canAsk: boolean; who?: string }): Promise<GateOutcome> {
  const once = new Set<BudgetScope>();
  // Each round goes, ends, lets a scope past or finds the budget changed; past the bound it ends.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const reached = host.spending.check(host.turn, { inputChars, past: once });
    if (!reached) {
      warnNear(host);
      return { go: true };
    }
    if (reached.unpriced) return { go: false, message: `${reached.reason}.` };
    const mode = host.mode();
    if (!opts.canAsk || UNASKABLE.has(mode)) {
      const why = !opts.canAsk ? `nobody can be asked in ${opts.who ?? 'this loop'}` : `the session's mode is ${mode}, in which nobody is asked`;
      return { go: false, message: `${reached.reason}; ${why}.` };
    }
    const answer = await ask(host, reached);
    if (answer.behavior === 'cancelled') return { go: false, message: `${reached.reason}; ${answer.reason}.` };
    if (answer.behavior === 'deny') {
      const by = answer.by === 'timeout' ? 'nobody answered before the permission timeout' : answer.by === 'rule' ? (answer.verdict?.reason ?? 'it was refused') : 'a person refused to go on';
      return { go: false, message: `${reached.reason}; ${by}${answer.message ? ` (${answer.message})` : ''}.` };
    }
    // Decided again under a new budget (or policy): checked again. The tenant's day is never waved through.
    if ((answer.by === 'rule' && answer.verdict?.decidedBy !== 'hook') || reached.scope === 'tenant') continue;
    // A person's allow (or a PermissionRequest hook's) lets this call go on; a new limit stays.
    const limit = (answer.updatedInput as { limit?: unknown } | undefined)?.limit;
    if (typeof limit === 'number') host.raise(reached.scope, reached.unit, limit);
    once.add(reached.scope);
  }
  return { go: false, message: `the budgets could not be settled after ${MAX_ROUNDS} checks before one model call` };
}

/** Checks before one call, at most: each scope let past once, budgets changed meanwhile. */
const MAX_ROUNDS = 8;

async function ask(host: BudgetGateHost, reached: BudgetReached): Promise<ApprovalAnswer> {
  const input: BudgetAsk = { scope: reached.scope, unit: reached.unit, spent: reached.spent, limit: reached.limit, next_call_max: reached.next_call_max };
  // One id per scope and model call: a turn resumed after a restart asks with the same one, and waits on the request left pending.
  const toolUseId = `budget_${host.turn.model_calls ?? 0}_${reached.scope}`;
  const note = { tool_use_id: toolUseId, tool: BUDGET_TOOL, mode: host.mode(), input_digest: inputDigest(input), input_source: 'call' as const };
  host.recordDecision({ ...note, behavior: 'ask', decided_by: 'mode', rules: [], reason: reached.reason });
  const answer = await host.ask({ toolUseId, tool: BUDGET_TOOL, input, reason: reached.reason, suggestions: [] }, async () => {
    // A new budget (PATCH) or mode may decide the request without a person.
    if (UNASKABLE.has(host.mode())) return { behavior: 'deny', reason: `the session's mode is now ${host.mode()}, in which nobody is asked`, decidedBy: 'mode', rules: [] };
    const again = host.spending.check(host.turn, { inputChars: 0 });
    const same = again !== null && again.scope === reached.scope && again.unit === reached.unit && again.limit === reached.limit;
    return same ? null : { behavior: 'allow', reason: 'the budget changed', decidedBy: 'rule', rules: [] };
  });
  const by = answer.behavior === 'cancelled' ? 'cancel' : answer.by === 'timeout' ? 'timeout' : answer.by === 'rule' ? (answer.verdict?.decidedBy ?? 'rule') : 'person';
  const allow = answer.behavior === 'allow';
  host.recordDecision({
    ...note,
    behavior: allow ? 'allow' : 'deny',
    decided_by: by,
    rules: [],
    reason: allow ? `${reached.reason}: allowed to go on` : answer.behavior === 'cancelled' ? answer.reason : `${reached.reason}: refused`,
    ...(answer.permissionId ? { permission_id: answer.permissionId } : {}),
  });
  return answer;
}

function warnNear(host: BudgetGateHost): void {
  for (const s of host.spending.shares(host.turn)) {
    const key = `${s.scope}/${s.unit}`;
    if (s.share < NEAR_SHARE || host.warned.has(key)) continue;
    host.warned.add(key);
    const say = (n: number) => (s.unit === 'usd' ? `$${n.toFixed(4)}` : `${n} tokens`);
    host.notify(`The ${s.scope}'s budget is near: ${say(s.spent)} of ${say(s.limit)} spent (${Math.round(s.share * 100)}%)`);
  }
}
