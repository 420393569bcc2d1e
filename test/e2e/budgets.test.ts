// What model calls cost and the budgets that bound them, through the HTTP API: cost_usd from the
// built-in price table over a fake Anthropic endpoint (cache reads and writes priced apart), a
// provider that reports no usage, budgets of a turn and a session pausing with a `Budget` request
// and going on after an approval (once, or with a raised limit), a denial and dontAsk ending the
// turn with budget_exceeded, a subagent's spending, PATCH deciding a waiting request, a pause
// that survives a restart, and every bad input refused before anything runs.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicStream } from '../helpers/model-streams.js';
import { FakeServer, sse as sseReply } from '../model/fake-server.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { clientFor, keysFile, newKey, startWithKeys } from '../helpers/tenants.js';
import { createTestDatabase } from '../helpers/postgres.js';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let streams: SseStream[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await closeAll(servers);
  servers = [];
  for (const f of fakes.splice(0)) await f.close();
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

/** A price file: `scripted/priced` at $1000 per million tokens in and out ($0.001 a token). */
async function priceFile(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-prices-'));
  dirs.push(dir);
  const file = path.join(dir, 'prices.json');
  await fs.writeFile(file, JSON.stringify({ models: { 'scripted/priced': { input: 1000, output: 1000 } } }));
  return file;
}

async function boot(env: Record<string, string> = {}, options: Parameters<typeof startServer>[1] = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_MODEL_PRICES: await priceFile(), ...env }, options);
  servers.push(t);
  return t;
}

async function sse(t: TestServer, sessionId: string): Promise<SseStream> {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`);
  streams.push(s);
  return s;
}

const text = (t: string) => ({ type: 'text', text: t });
const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });
const THREE_CALLS = [{ content: [use('toolu_1', 'LS', { path: '.' })] }, { content: [use('toolu_2', 'LS', { path: '.' })] }, { content: [text('done')] }];

async function pricedSession(t: TestServer, extra: Record<string, unknown> = {}, script: unknown[] = THREE_CALLS) {
  const res = await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'priced', script, max_tokens: 100 }, tools: ['LS', 'Agent'], ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

/** Waits for the next pending `Budget` request of the session. */
async function budgetAsk(t: TestServer, sessionId: string, notId?: string) {
  for (let i = 0; i < 400; i++) {
    const list = (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items as { id: string; tool: string; input: Record<string, unknown>; reason: string }[];
    const found = list.find((p) => p.tool === 'Budget' && p.id !== notId);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no Budget request came');
}

describe('cost', () => {
  it('prices each call from the built-in table, cache reads and writes apart, and sums turn, session and metrics', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', base_url: f.origin, api_key: 'k' }, tools: ['LS'] })).body;
    f.reply(
      sseReply(anthropicStream([use('toolu_a', 'LS', { path: '.' }) as never], { inputTokens: 1000, cacheReadTokens: 200, cacheWriteTokens: 100, outputTokens: 500 })),
      sseReply(anthropicStream([{ text: 'ok' }], { inputTokens: 25, outputTokens: 30 })),
    );
    const events = await sse(t, s.id);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'list' })).body;
    expect(turn.status).toBe('completed');
    // (1000×3 + 200×0.3 + 100×3.75 + 500×15) / 1e6, then (25×3 + 30×15) / 1e6.
    const first = 0.010935;
    const second = 0.000525;
    const done = await events.waitFor((e) => e.event === 'message.completed' && e.data.message_index === 3);
    const calls = events.events.filter((e) => e.event === 'message.completed').map((e) => e.data.usage);
    expect(calls[0]).toEqual({ input_tokens: 1300, output_tokens: 500, cache_read_input_tokens: 200, cache_creation_input_tokens: 100, cost_usd: first });
    expect(done.data.usage).toEqual({ input_tokens: 25, output_tokens: 30, cost_usd: second });
    expect(turn.usage).toEqual({ input_tokens: 1325, output_tokens: 530, cache_read_input_tokens: 200, cache_creation_input_tokens: 100, cost_usd: 0.01146 });
    const session = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    expect(session.usage).toEqual({ ...turn.usage, model_calls: 2 });
    expect(session.budget).toBeNull();
    const metrics = (await t.api.get('/metrics')).text as string;
    expect(metrics).toMatch(/norma_model_cost_usd_total\{tenant="default",model="claude-sonnet-4-5-20250929"\} 0\.01146/);
    expect(metrics).toMatch(/norma_model_tokens_total\{tenant="default",model="claude-sonnet-4-5-20250929",kind="cache_read"\} 200/);
    expect(metrics).toMatch(/norma_model_calls_total\{tenant="default",model="claude-sonnet-4-5-20250929"\} 2/);
  });

  it('a model without a price costs null (never a guess), and a budget in dollars for it is refused', async () => {
    const t = await boot();
    const script = [{ content: [text('hi')] }, { content: [text('hi again')] }];
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'unpriced', script } })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hello' })).body;
    expect(turn.usage.cost_usd).toBeNull();
    expect(turn.usage.input_tokens).toBeGreaterThan(0);
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body.usage).toMatchObject({ cost_usd: null, model_calls: 1 });
    const refused = await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'unpriced', script }, budget: { max_usd: 1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('budget.max_usd: scripted model "unpriced" has no known price');
    const turnRefused = await t.api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'again', budget: { max_usd: 1 } });
    expect(turnRefused.status).toBe(400);
    expect(turnRefused.body.detail).toContain('has no known price');
    // In tokens, an unpriced model can be bounded.
    const bounded = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'again', budget: { max_tokens: 1_000_000 } })).body;
    expect(bounded).toMatchObject({ status: 'completed', budget: { max_tokens: 1_000_000 }, usage: { cost_usd: null } });
  });

  it('a provider that reports no usage is counted at the call\'s worst case, and said', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-haiku-4-5', base_url: f.origin, api_key: 'k', max_tokens: 1000 }, tools: ['LS'] })).body;
    f.reply(sseReply(anthropicStream([{ text: 'ok' }], { noUsage: true })));
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hello' })).body;
    expect(turn.status).toBe('completed');
    expect(turn.usage.estimated_calls).toBe(1);
    expect(turn.usage.output_tokens).toBe(1000);
    expect(turn.usage.input_tokens).toBeGreaterThan(0);
    // Haiku 4.5: $1 in, $5 out per million tokens.
    expect(turn.usage.cost_usd).toBeCloseTo((turn.usage.input_tokens * 1 + 1000 * 5) / 1e6, 9);
  });
});

describe('budgets', () => {
  it('a session budget pauses before the call that would pass it; allow goes on once, allow with a raised limit for good', async () => {
    const t = await boot();
    const s = await pricedSession(t, { budget: { max_usd: 0.01 } });
    expect(s.budget).toEqual({ max_usd: 0.01 });
    const events = await sse(t, s.id);
    const posted = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' });
    // max_tokens 100 at $0.001 a token: the first call alone may cost $0.10.
    expect(posted.body).toMatchObject({ status: 'awaiting_permission', model_calls: 0 });
    const first = await budgetAsk(t, s.id);
    expect(first.input).toMatchObject({ scope: 'session', unit: 'usd', spent: 0, limit: 0.01 });
    expect(first.input.next_call_max as number).toBeGreaterThan(0.1);
    expect(first.reason).toContain('The session\'s budget of $0.0100 would be passed');
    expect((await t.api.post(`/v1/sessions/${s.id}/permissions/${first.id}`, { behavior: 'allow' })).status).toBe(200);
    // One call went on; the next one asks again.
    const second = await budgetAsk(t, s.id, first.id);
    expect(second.input.spent as number).toBeGreaterThan(0);
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${posted.body.id}`)).body.model_calls).toBe(1);
    const raised = await t.api.post(`/v1/sessions/${s.id}/permissions/${second.id}`, { behavior: 'allow', updated_input: { limit: 50 } });
    expect(raised.status).toBe(200);
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${posted.body.id}?wait=20`)).body;
    const done = await waitTurn(t, s.id, turn.id);
    expect(done).toMatchObject({ status: 'completed', model_calls: 3 });
    const session = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    expect(session.budget).toEqual({ max_usd: 50 });
    expect(session.usage.cost_usd).toBe(done.usage.cost_usd);
    expect(events.events.some((e) => e.event === 'session.updated' && e.data.session.budget?.max_usd === 50)).toBe(true);
    // The trail has the asks and who let them go on.
    const decisions = (await t.api.get(`/v1/sessions/${s.id}/decisions`)).body.items as { tool: string; behavior: string; decided_by: string }[];
    expect(decisions.filter((d) => d.tool === 'Budget').map((d) => `${d.behavior}/${d.decided_by}`)).toEqual(['ask/mode', 'allow/person', 'ask/mode', 'allow/person']);
  });

  it('a turn budget in tokens: a denial ends the turn with budget_exceeded and no further call', async () => {
    const t = await boot();
    const s = await pricedSession(t);
    const posted = await t.api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'go', budget: { max_tokens: 50 } });
    expect(posted.status).toBe(202);
    const ask = await budgetAsk(t, s.id);
    expect(ask.input).toMatchObject({ scope: 'turn', unit: 'tokens', spent: 0, limit: 50 });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${ask.id}`, { behavior: 'deny', message: 'too much' });
    const turn = await waitTurn(t, s.id, posted.body.id);
    expect(turn).toMatchObject({ status: 'failed', model_calls: 0, budget: { max_tokens: 50 } });
    expect(turn.error.code).toBe('budget_exceeded');
    expect(turn.error.message).toContain('a person refused to go on (too much)');
  });

  it('where nobody can be asked (dontAsk) the turn ends with budget_exceeded before the call', async () => {
    const t = await boot();
    const s = await pricedSession(t, { permission_mode: 'dontAsk', budget: { max_usd: 0.01 } });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' })).body;
    expect(turn).toMatchObject({ status: 'failed', model_calls: 0, error: { code: 'budget_exceeded' } });
    expect(turn.error.message).toContain('in which nobody is asked');
    expect((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items).toEqual([]);
  });

  it('a subagent\'s calls count toward the turn\'s budget; reaching it inside the subagent ends the turn', async () => {
    const t = await boot();
    const sub = [{ content: [use('toolu_s1', 'LS', { path: '.' })] }, { content: [text('report')] }];
    const res = await t.api.post('/v1/sessions', {
      model: { provider: 'scripted', model: 'priced', max_tokens: 1, script: [{ content: [use('toolu_agent', 'Agent', { description: 'look', prompt: 'look around' })] }, { content: [text('done')] }], subagent_script: sub },
      tools: ['LS', 'Agent'],
      allowed_tools: ['Agent', 'LS'],
    });
    expect(res.status).toBe(201);
    const posted = await t.api.post(`/v1/sessions/${res.body.id}/turns`, { prompt: 'go', budget: { max_tokens: 1 } });
    // The parent's loop may ask: a person lets its first call go on.
    const ask = await budgetAsk(t, res.body.id);
    await t.api.post(`/v1/sessions/${res.body.id}/permissions/${ask.id}`, { behavior: 'allow' });
    const turn = await waitTurn(t, res.body.id, posted.body.id);
    expect(turn.status).toBe('failed');
    expect(turn.error.code).toBe('budget_exceeded');
    expect(turn.error.message).toContain('nobody can be asked in the subagent of toolu_agent');
    expect(turn.model_calls).toBe(1);
    expect(turn.results.find((r: { tool_use_id: string }) => r.tool_use_id === 'toolu_agent').is_error).toBe(true);
  });

  it('a PATCH of the session\'s budget decides a waiting request, and the turn goes on', async () => {
    const t = await boot();
    const s = await pricedSession(t, { budget: { max_usd: 0.01 } });
    const posted = await t.api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'go' });
    const ask = await budgetAsk(t, s.id);
    expect((await t.api.patch(`/v1/sessions/${s.id}`, { budget: { max_usd: 100 } })).status).toBe(200);
    const turn = await waitTurn(t, s.id, posted.body.id);
    expect(turn.status).toBe('completed');
    expect((await t.api.get(`/v1/sessions/${s.id}/permissions/${ask.id}`)).body).toMatchObject({ status: 'allowed', resolved_by: 'rule' });
    // null takes the budget away.
    expect((await t.api.patch(`/v1/sessions/${s.id}`, { budget: null })).body.budget).toBeNull();
  });

  it('refuses bad budgets and bad answers to a Budget request, and keeps the request pending', async () => {
    const admin = newKey('admin');
    const approver = newKey('approve');
    const t = await startWithKeys(
      [
        { key: admin, tenant: 'acme', scopes: ['admin'] },
        { key: approver, tenant: 'acme', scopes: ['approve'] },
      ],
      { NORMA_MODEL_PRICES: await priceFile() },
    );
    servers.push(t);
    const api = clientFor(t.url, admin);
    for (const budget of [{ max_usd: -1 }, { max_usd: 0 }, { max_usd: 'ten' }, { max_tokens: 1.5 }, {}, { max_usd: 1, extra: 1 }, { max_usd: 1e7 }]) {
      const res = await api.post('/v1/sessions', { model: { provider: 'scripted', model: 'priced', script: THREE_CALLS }, budget });
      expect(res.status, JSON.stringify(budget)).toBe(400);
    }
    const s = (await api.post('/v1/sessions', { model: { provider: 'scripted', model: 'priced', script: THREE_CALLS, max_tokens: 100 }, tools: ['LS'], budget: { max_usd: 0.01 } })).body;
    expect((await api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: {} }], budget: { max_usd: 1 } })).status).toBe(400);
    await api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'go' });
    const ask = await budgetAskWith(api, s.id);
    const bad: [unknown, number, string][] = [
      [{ behavior: 'allow', remember: ['LS'] }, 400, 'no rules to remember'],
      [{ behavior: 'allow', updated_input: { limit: 0 } }, 400, 'is not above what is spent'],
      [{ behavior: 'allow', updated_input: { limit: 'more' } }, 400, 'a number of US dollars'],
      [{ behavior: 'allow', updated_input: { limit: 5, scope: 'tenant' } }, 400, 'must be {"limit": N}'],
      [{ behavior: 'allow', updated_input: { limit: 1e9 } }, 400, 'above the most a budget may name'],
    ];
    for (const [body, status, says] of bad) {
      const res = await api.post(`/v1/sessions/${s.id}/permissions/${ask.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.detail).toContain(says);
    }
    // A key that may only answer may let the call go on, not raise the budget.
    const raise = await clientFor(t.url, approver).post(`/v1/sessions/${s.id}/permissions/${ask.id}`, { behavior: 'allow', updated_input: { limit: 5 } });
    expect(raise.status).toBe(403);
    expect(raise.body.detail).toContain('may answer but not raise a budget');
    expect((await api.get(`/v1/sessions/${s.id}/permissions/${ask.id}`)).body.status).toBe('pending');
    expect((await clientFor(t.url, approver).post(`/v1/sessions/${s.id}/permissions/${ask.id}`, { behavior: 'allow' })).status).toBe(200);
  });

  it('a turn paused on a Budget request is paused again after a restart, on the same request', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-budget-restart-'));
    dirs.push(dataDir);
    const prices = await priceFile();
    const a = await startServer({ NORMA_MODEL_PRICES: prices }, { dataDir });
    const s = await pricedSession(a, { budget: { max_usd: 0.01 } });
    const posted = await a.api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'go' });
    const ask = await budgetAsk(a, s.id);
    await a.close();
    const b = await boot({ NORMA_MODEL_PRICES: prices }, { dataDir });
    expect((await b.api.get(`/v1/sessions/${s.id}/turns/${posted.body.id}`)).body).toMatchObject({ status: 'awaiting_permission', pending: [ask.id] });
    expect((await b.api.post(`/v1/sessions/${s.id}/permissions/${ask.id}`, { behavior: 'allow', updated_input: { limit: 100 } })).status).toBe(200);
    const turn = await waitTurn(b, s.id, posted.body.id);
    expect(turn).toMatchObject({ status: 'completed', model_calls: 3 });
    const budgetRequests = ((await b.api.get(`/v1/sessions/${s.id}/permissions`)).body.items as { tool: string }[]).filter((p) => p.tool === 'Budget');
    expect(budgetRequests).toHaveLength(1);
  });
});

describe('a tenant\'s daily budget', () => {
  it('is counted across two replicas on one database, and only the operator lets a turn past it', async () => {
    const db = await createTestDatabase();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-budget-replicas-'));
    dirs.push(dataDir);
    const key = newKey('acme');
    const policy = (usd: number) => [{ key, tenant: 'acme', scopes: ['admin'], policy: { max_usd_per_day: usd } }];
    const keys = await keysFile(policy(1000));
    const prices = await priceFile();
    try {
      const env = (node: string) => ({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_NODE_ID: node, NORMA_API_KEYS_FILE: keys.file, NORMA_MODEL_PRICES: prices, NORMA_SANDBOX: 'off' });
      const a = await startServer(env('a'), { dataDir });
      servers.push(a);
      const b = await startServer(env('b'), { dataDir });
      servers.push(b);
      const [onA, onB] = [clientFor(a.url, key), clientFor(b.url, key)];
      const script = [{ content: [text('one')] }];
      const model = { provider: 'scripted', model: 'priced', script, max_tokens: 10 };
      // An unpriced model cannot be kept to the tenant's day: refused.
      const unpriced = await onA.post('/v1/sessions', { model: { ...model, model: 'free' } });
      expect(unpriced.status).toBe(400);
      expect(unpriced.body.detail).toContain("the tenant's max_usd_per_day");
      // Replica A runs a session that spends.
      const first = (await onA.post('/v1/sessions', { model, tools: ['LS'] })).body;
      expect(first.policy.max_usd_per_day).toBe(1000);
      const done = (await onA.post(`/v1/sessions/${first.id}/turns?wait=20`, { prompt: 'go' })).body;
      expect(done.status).toBe('completed');
      const spentOnA = done.usage.cost_usd as number;
      expect(spentOnA).toBeGreaterThan(0);
      // The operator lowers the tenant's day below what was spent, on both replicas.
      await keys.write(policy(spentOnA / 2));
      for (const r of [a, b]) expect((await r.server.reloadKeys()).ok).toBe(true);
      // A session replica B runs: its request says what A's session spent today.
      const second = (await onB.post('/v1/sessions', { model, tools: ['LS'] })).body;
      const posted = (await onB.post(`/v1/sessions/${second.id}/turns`, { prompt: 'go' })).body;
      const ask = (await budgetAskWith(onB, second.id)) as unknown as { id: string; input: Record<string, unknown> };
      expect(ask.input).toMatchObject({ scope: 'tenant', unit: 'usd', spent: spentOnA, limit: spentOnA / 2 });
      // Nobody but the operator lets a turn past the tenant's day.
      const allow = await onB.post(`/v1/sessions/${second.id}/permissions/${ask.id}`, { behavior: 'allow' });
      expect(allow.status).toBe(400);
      expect(allow.body.detail).toContain("the tenant's daily budget (max_usd_per_day) is the operator's");
      // The operator raises it: the waiting request is decided, and the turn goes on.
      await keys.write(policy(1000));
      for (const r of [a, b]) expect((await r.server.reloadKeys()).ok).toBe(true);
      const finished = await waitTurn(onB, second.id, posted.id);
      expect(finished.status).toBe('completed');
      expect((await onB.get(`/v1/sessions/${second.id}/permissions/${ask.id}`)).body).toMatchObject({ status: 'allowed', resolved_by: 'rule' });
    } finally {
      await closeAll(servers);
      servers = [];
      await keys.remove();
      await db.drop();
    }
  });
});

async function waitTurn(t: TestServer | ReturnType<typeof clientFor>, sessionId: string, turnId: string) {
  const api = 'api' in t ? t.api : t;
  for (let i = 0; i < 400; i++) {
    const turn = (await api.get(`/v1/sessions/${sessionId}/turns/${turnId}`)).body;
    if (!['running', 'awaiting_permission', 'awaiting_input'].includes(turn.status)) return turn;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`turn ${turnId} did not end`);
}

async function budgetAskWith(api: ReturnType<typeof clientFor>, sessionId: string) {
  for (let i = 0; i < 400; i++) {
    const list = (await api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items as { id: string; tool: string }[];
    const found = list.find((p) => p.tool === 'Budget');
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no Budget request came');
}
