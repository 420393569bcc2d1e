// The accounting under budgets: sums that stay exact, a cost that is null once any call had no
// price, the worst case checked before a call (turn, then session, then the tenant's day), and a
// call without reported usage counted at its worst case.
import { describe, expect, it } from 'vitest';
import type { Session, Turn, UsageTotals } from '../../src/contract/schemas.js';
import { priceTable } from '../../src/model/prices.js';
import { MemorySpend, toNano } from '../../src/store/spend.js';
import { addUsage, emptySessionUsage, emptyUsage, Spending } from '../../src/session/spending.js';
import { budgetGate, type BudgetGateHost } from '../../src/session/budget-gate.js';

function setup(opts: { model?: string; sessionBudget?: Session['budget']; daily?: number | null } = {}) {
  const session = { tenant: 'acme', budget: opts.sessionBudget ?? null, usage: emptySessionUsage() } as unknown as Session;
  const ledger = new MemorySpend();
  const spending = new Spending({
    prices: priceTable(new Map([['scripted/p', { input: 1000, output: 2000, cache_read: 100, cache_write: 1250 }]])),
    ledger,
    now: () => new Date('2026-12-06T12:00:00Z'),
    provider: 'scripted',
    model: opts.model ?? 'p',
    maxTokens: 10,
    session: () => session,
    tenantLimitUsd: () => opts.daily ?? null,
    updateSession: (change) => change(session),
  });
  const turn = { usage: emptyUsage(), model_calls: 0 } as unknown as Turn;
  return { session, ledger, spending, turn };
}

describe('spending', () => {
  it('adds each call to the turn, the session and the tenant day, exactly', () => {
    const { session, ledger, spending, turn } = setup();
    for (let i = 0; i < 3; i++) spending.record(turn, { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 50 }, true, 300);
    // (50×1000 + 50×100 + 10×2000) / 1e6 = 0.075 a call.
    expect(turn.usage).toEqual({ input_tokens: 300, output_tokens: 30, cache_read_input_tokens: 150, cost_usd: 0.225 });
    expect(session.usage).toEqual({ ...turn.usage, model_calls: 3 });
    expect(ledger.spent('acme', '2026-12-06')).toBe(toNano(0.225));
  });

  it('a call without reported usage is counted at its worst case, and counted as estimated', () => {
    const { spending, turn } = setup();
    // Calibrated by a reported call: 100 tokens for 300 characters.
    spending.record(turn, { input_tokens: 100, output_tokens: 1 }, true, 300);
    const call = spending.record(turn, { input_tokens: 0, output_tokens: 0 }, false, 600);
    expect(call).toEqual({ input_tokens: 200, output_tokens: 10, cost_usd: 0.22, estimated_calls: 1 });
    expect(turn.usage!.estimated_calls).toBe(1);
  });

  it('a sum with an unpriced call is null, never part of the cost', () => {
    expect(addUsage({ ...emptyUsage(), cost_usd: 0.5 }, { input_tokens: 1, output_tokens: 1, cost_usd: null })).toMatchObject({ cost_usd: null });
    expect(addUsage({ ...emptyUsage(), cost_usd: null }, { input_tokens: 1, output_tokens: 1, cost_usd: 0.5 })).toMatchObject({ cost_usd: null });
    expect(addUsage<UsageTotals>({ input_tokens: 0, output_tokens: 0 }, { input_tokens: 1, output_tokens: 1, cost_usd: 0.1 }).cost_usd).toBe(0.1);
    expect(addUsage({ ...emptyUsage(), cost_usd: 0.1 }, { input_tokens: 1, output_tokens: 1, cost_usd: 0.2 }).cost_usd).toBe(0.3);
  });

  it('checks the worst case against the turn, then the session, then the tenant\'s day; a scope let past is skipped', () => {
    const { spending, turn, ledger } = setup({ sessionBudget: { max_usd: 1 }, daily: 2 });
    // 30 characters at 3 a token: 10 tokens in, 10 out at most: (10×1000 + 10×2000)/1e6 = $0.03.
    expect(spending.check(turn, { inputChars: 30 })).toBeNull();
    turn.budget = { max_tokens: 15 };
    expect(spending.check(turn, { inputChars: 30 })).toMatchObject({ scope: 'turn', unit: 'tokens', spent: 0, limit: 15, next_call_max: 20 });
    expect(spending.check(turn, { inputChars: 30, past: new Set(['turn']) })).toBeNull();
    ledger.add('acme', '2026-12-06', toNano(1.99));
    expect(spending.check(turn, { inputChars: 30, past: new Set(['turn']) })).toMatchObject({ scope: 'tenant', unit: 'usd', spent: 1.99, limit: 2, next_call_max: 0.03 });
    // Yesterday's spending is not today's.
    const other = setup({ daily: 2 });
    other.ledger.add('acme', '2026-12-05', toNano(5));
    expect(other.spending.check(other.turn, { inputChars: 30 })).toBeNull();
  });

  it('a limit in dollars on a model without a price cannot be kept', () => {
    const { spending, turn } = setup({ model: 'unknown', daily: 5 });
    expect(spending.price).toBeNull();
    expect(spending.check(turn, { inputChars: 30 })).toMatchObject({ scope: 'tenant', unpriced: true });
    turn.budget = { max_usd: 1 };
    expect(spending.check(turn, { inputChars: 30 })).toMatchObject({ scope: 'turn', unpriced: true, reason: expect.stringContaining('has no known price') });
  });
});

describe('the budget gate', () => {
  function host(spending: Spending, turn: Turn, answers: ('allow' | 'deny')[] = []) {
    const notes: string[] = [];
    const asked: unknown[] = [];
    const h: BudgetGateHost = {
      turn,
      spending,
      mode: () => 'default',
      ask: async (request) => {
        asked.push(request.input);
        const a = answers.shift() ?? 'deny';
        return a === 'allow' ? { behavior: 'allow', by: 'client' } : { behavior: 'deny', by: 'client' };
      },
      recordDecision: () => undefined,
      raise: () => undefined,
      notify: (m) => notes.push(m),
      warned: new Set(),
    };
    return { h, notes, asked };
  }

  it('tells once that a budget is near (80%), and asks before the call that would pass it', async () => {
    const { spending, turn } = setup();
    turn.budget = { max_tokens: 1000 };
    const { h, notes, asked } = host(spending, turn, ['allow']);
    turn.usage = { ...emptyUsage(), input_tokens: 700, output_tokens: 0 };
    expect(await budgetGate(h, 30, { canAsk: true })).toEqual({ go: true });
    expect(notes).toEqual([]);
    turn.usage = { ...emptyUsage(), input_tokens: 850, output_tokens: 0 };
    expect(await budgetGate(h, 30, { canAsk: true })).toEqual({ go: true });
    expect(await budgetGate(h, 30, { canAsk: true })).toEqual({ go: true });
    expect(notes).toEqual(["The turn's budget is near: 850 tokens of 1000 tokens spent (85%)"]);
    expect(asked).toEqual([]);
    // 990 + 20 at most passes 1000: asked, allowed once.
    turn.usage = { ...emptyUsage(), input_tokens: 990, output_tokens: 0 };
    expect(await budgetGate(h, 30, { canAsk: true })).toEqual({ go: true });
    expect(asked).toEqual([{ scope: 'turn', unit: 'tokens', spent: 990, limit: 1000, next_call_max: 20 }]);
    // Denied the next time: the turn ends, saying why.
    const denied = await budgetGate(h, 30, { canAsk: true });
    expect(denied).toMatchObject({ go: false, message: expect.stringContaining('a person refused to go on') });
  });
});

