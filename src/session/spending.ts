// What a session's model calls cost and the budgets that bound them (API.md "Long sessions").
// Every call's usage is priced from the price table (operator's, then built-in; unknown: null,
// never a guess) and added, in the transaction that stores the call's message, to the turn's
// usage, the session's and the tenant's UTC day (the store's ledger, shared by replicas). Before
// each call, its worst case — the input as measured now at the tokens-per-character of the
// session's last reported call, plus max_tokens of output — is checked against the turn's, the
// session's and the tenant's limits, in that order: the first it would pass is said, and the
// prompt loop asks a person (a `Budget` request) or ends the turn. A budget is thus overshot by at
// most what one call costs beyond its estimate.
import type { Budget, BudgetAsk, BudgetScope, SessionUsage, UsageTotals } from '../contract/budget.js';
import type { Session, Turn } from '../contract/schemas.js';
import { callCost, worstCaseCost, type ModelPrice, type PriceTable } from '../model/prices.js';
import type { Usage } from '../model/provider.js';
import type { SpendLedger } from '../store/spend.js';
import { fromNano, toNano, utcDay } from '../store/spend.js';

/** Characters per token assumed before a provider has reported a call (a low figure: estimates run high). */
const DEFAULT_CHARS_PER_TOKEN = 3;
/** The tokens per character a report may set the estimate to: a provider's figure outside is taken as these. */
const MIN_TOKENS_PER_CHAR = 0.05;
const MAX_TOKENS_PER_CHAR = 2;
/** The most tokens one call is counted with, of each kind. */
const MAX_CALL_TOKENS = 100_000_000;

function count(n: number | undefined): number {
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(MAX_CALL_TOKENS, Math.max(0, Math.floor(n))) : 0;
}

/** A provider's usage as counted: whole, non-negative, bounded; the cache's parts within the input. */
export function saneUsage(u: Usage): Usage {
  const input = count(u.input_tokens);
  const read = Math.min(input, count(u.cache_read_input_tokens));
  const written = Math.min(input - read, count(u.cache_creation_input_tokens));
  return { input_tokens: input, output_tokens: count(u.output_tokens), ...(read > 0 ? { cache_read_input_tokens: read } : {}), ...(written > 0 ? { cache_creation_input_tokens: written } : {}) };
}

export interface SpendingDeps {
  prices: PriceTable;
  ledger: SpendLedger;
  now: () => Date;
  provider: 'anthropic' | 'openai' | 'scripted';
  model: string;
  maxTokens: number;
  /** The session as in force (its budget, usage and tenant). */
  session: () => Readonly<Session>;
  /** The tenant's max_usd_per_day as in force (null: none). */
  tenantLimitUsd: () => number | null;
  /** Writes the session (inside the caller's transaction). */
  updateSession: (change: (s: Session) => void) => void;
  /** Told of each priced call (metrics). */
  onCall?: (usage: Usage, costUsd: number | null) => void;
}

/** A limit the next call would pass. */
export interface BudgetReached extends BudgetAsk {
  /** Said to people and to the turn's error. */
  reason: string;
  /** A limit in dollars on a model without a price: it cannot be kept, and asking would not help. */
  unpriced?: true;
}

/** What the next call is checked with: its input size, and the scopes a person let it past. */
export interface NextCall {
  inputChars: number;
  /** Scopes not checked for this call (a person allowed it to go on). */
  past?: ReadonlySet<BudgetScope>;
}

/** No call yet: nothing spent. */
export const emptyUsage = (): UsageTotals => ({ input_tokens: 0, output_tokens: 0, cost_usd: 0 });
export const emptySessionUsage = (): SessionUsage => ({ ...emptyUsage(), model_calls: 0 });

export class Spending {
  readonly price: ModelPrice | null;
  /** Tokens per input character, from the session's last call the provider reported. */
  private tokensPerChar = 1 / DEFAULT_CHARS_PER_TOKEN;

  constructor(private readonly d: SpendingDeps) {
    this.price = d.prices.lookup(d.provider, d.model)?.price ?? null;
  }

  /** Characters per input token, as the session's last reported call measured it. */
  get charsPerToken(): number {
    return 1 / this.tokensPerChar;
  }

  /** The input tokens a call of `chars` characters is taken to send. */
  inputEstimate(chars: number): number {
    return Math.ceil(chars * this.tokensPerChar);
  }

  /** The first limit the next call's worst case would pass, or null: it may go. */
  check(turn: Turn, next: NextCall): BudgetReached | null {
    const inputTokens = this.inputEstimate(next.inputChars);
    const worstTokens = inputTokens + this.d.maxTokens;
    const worstUsd = this.price ? worstCaseCost(this.price, inputTokens, this.d.maxTokens) : null;
    const session = this.d.session();
    const scopes: [BudgetScope, Budget | null | undefined, UsageTotals | undefined][] = [
      ['turn', turn.budget, turn.usage],
      ['session', session.budget, session.usage],
    ];
    for (const [scope, budget, used] of scopes) {
      if (!budget || next.past?.has(scope)) continue;
      const spentTokens = (used?.input_tokens ?? 0) + (used?.output_tokens ?? 0);
      if (budget.max_tokens !== undefined && spentTokens + worstTokens > budget.max_tokens) {
        return reached(scope, 'tokens', spentTokens, budget.max_tokens, worstTokens);
      }
      if (budget.max_usd !== undefined) {
        if (worstUsd === null) return unpriced(scope, budget.max_usd, this.d);
        const spent = used?.cost_usd ?? 0;
        if (spent + worstUsd > budget.max_usd) return reached(scope, 'usd', spent, budget.max_usd, worstUsd);
      }
    }
    const daily = this.d.tenantLimitUsd();
    if (daily !== null && !next.past?.has('tenant')) {
      if (worstUsd === null) return unpriced('tenant', daily, this.d);
      const spent = fromNano(this.d.ledger.spent(session.tenant, utcDay(this.d.now())));
      if (spent + worstUsd > daily) return reached('tenant', 'usd', spent, daily, worstUsd);
    }
    return null;
  }

  /** How much of each limit in force is spent (0–1 and beyond), for warnings that a budget is near. */
  shares(turn: Turn): { scope: BudgetScope; unit: 'usd' | 'tokens'; share: number; spent: number; limit: number }[] {
    const out: ReturnType<Spending['shares']> = [];
    const session = this.d.session();
    for (const [scope, budget, used] of [['turn', turn.budget, turn.usage], ['session', session.budget, session.usage]] as const) {
      if (!budget) continue;
      const tokens = (used?.input_tokens ?? 0) + (used?.output_tokens ?? 0);
      if (budget.max_tokens !== undefined) out.push({ scope, unit: 'tokens', share: tokens / budget.max_tokens, spent: tokens, limit: budget.max_tokens });
      if (budget.max_usd !== undefined && used?.cost_usd != null) out.push({ scope, unit: 'usd', share: used.cost_usd / budget.max_usd, spent: used.cost_usd, limit: budget.max_usd });
    }
    const daily = this.d.tenantLimitUsd();
    if (daily !== null) {
      const spent = fromNano(this.d.ledger.spent(session.tenant, utcDay(this.d.now())));
      out.push({ scope: 'tenant', unit: 'usd', share: spent / daily, spent, limit: daily });
    }
    return out;
  }

  /**
   * A call's usage, priced, added to the turn (null: a compaction between turns), the session and the tenant's day: run inside the
   * transaction that stores the call. `inputChars`: what the call sent, for the estimate of a call
   * whose provider reported no usage (then counted at its worst case).
   */
  record(turn: Turn | null, reportedUsage: Usage, reported: boolean, inputChars: number): UsageTotals {
    // What a provider reports is its word: counts are whole, never negative, never absurd.
    const usage = saneUsage(reportedUsage);
    let counted: Usage = usage;
    if (reported && usage.input_tokens > 0 && inputChars > 0) {
      this.tokensPerChar = Math.min(MAX_TOKENS_PER_CHAR, Math.max(MIN_TOKENS_PER_CHAR, usage.input_tokens / inputChars));
    }
    if (!reported) counted = { input_tokens: this.inputEstimate(inputChars), output_tokens: this.d.maxTokens };
    const cost = this.price ? callCost(this.price, counted) : null;
    const call: UsageTotals = { ...counted, cost_usd: cost, ...(reported ? {} : { estimated_calls: 1 }) };
    if (turn) turn.usage = addUsage(turn.usage ?? emptyUsage(), call);
    this.d.updateSession((s) => {
      const before: SessionUsage = s.usage ?? emptySessionUsage();
      s.usage = { ...addUsage(before, call), model_calls: before.model_calls + 1 };
    });
    if (cost !== null && cost > 0) this.d.ledger.add(this.d.session().tenant, utcDay(this.d.now()), toNano(cost));
    this.d.onCall?.(counted, cost);
    return call;
  }
}

/** `total` plus one call. `cost_usd: null` once any call had no price: a sum of some calls is not the cost. */
export function addUsage<T extends UsageTotals>(total: T, call: UsageTotals): T {
  const out: T = { ...total, input_tokens: total.input_tokens + call.input_tokens, output_tokens: total.output_tokens + call.output_tokens };
  for (const k of ['cache_read_input_tokens', 'cache_creation_input_tokens', 'estimated_calls'] as const) {
    const v = (total[k] ?? 0) + (call[k] ?? 0);
    if (v > 0) out[k] = v;
  }
  const before = total.cost_usd === undefined ? 0 : total.cost_usd;
  const cost = call.cost_usd ?? null;
  out.cost_usd = before === null || cost === null ? null : Math.round((before + cost) * 1e9) / 1e9;
  return out;
}

const money = (usd: number): string => `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
const SCOPE_NAME: Record<BudgetScope, string> = { turn: 'The turn\'s budget', session: 'The session\'s budget', tenant: 'The tenant\'s daily budget (max_usd_per_day)' };

function reached(scope: BudgetScope, unit: 'usd' | 'tokens', spent: number, limit: number, next: number): BudgetReached {
  const say = unit === 'usd' ? money : (n: number) => `${n} tokens`;
  return {
    scope,
    unit,
    spent,
    limit,
    next_call_max: next,
    reason: `${SCOPE_NAME[scope]} of ${say(limit)} would be passed: ${say(spent)} spent, and the next model call may use up to ${say(next)}`,
  };
}

function unpriced(scope: BudgetScope, limit: number, d: SpendingDeps): BudgetReached {
  return {
    scope,
    unit: 'usd',
    spent: 0,
    limit,
    next_call_max: 0,
    unpriced: true,
    reason: `${SCOPE_NAME[scope]} of ${money(limit)} cannot be kept: ${d.provider} model ${JSON.stringify(d.model)} has no known price (NORMA_MODEL_PRICES)`,
  };
}
