// Compaction through the HTTP API, against a loopback fake of the Anthropic Messages API that
// reports usage and enforces a small context window (a request past it is refused with the API's
// own "prompt is too long"): a 200-call turn that compacts and completes without ever passing the
// window, an overflow handled by one compaction and one retry, a spiral (summaries that do not
// shrink) and auto: false ending in context_exhausted, a summary that fails twice, compaction on
// demand with its instructions, PreCompact refusing and PostCompact seeing the summary.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookInput } from '../../src/hooks/registry.js';
import { anthropicStream } from '../helpers/model-streams.js';
import { FakeServer, jsonError, sse, type Received } from '../model/fake-server.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { clientFor, newKey, startWithKeys } from '../helpers/tenants.js';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
afterEach(async () => {
  await closeAll(servers);
  servers = [];
  for (const f of fakes.splice(0)) await f.close();
});

const FAST = { modelOptions: { retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 } } };
const SUMMARY_MARK = 'You compact the conversation';

interface Model {
  /** The window the fake enforces, in its tokens (4 characters of the request's JSON each). */
  window: number;
  /** Calls of the work loop before the final answer. */
  calls: number;
  /** The summary a compaction request gets (default: a short one). */
  summary?: (req: Received) => string | null;
  /** A call made once the reads are done, before the final answer. */
  last?: { name: string; input: unknown };
}

/** A fake Anthropic endpoint: LS-free work (Read of one file, again and again), summaries on request, and the window enforced. */
async function windowedModel(m: Model) {
  const f = await new FakeServer().start();
  fakes.push(f);
  let work = 0;
  const state = { largest: 0, overflows: 0, summaries: 0 };
  f.respond((req) => {
    const body = JSON.parse(req.body) as { system?: string; messages: unknown[] };
    const tokens = Math.ceil((JSON.stringify(body.messages).length + (body.system?.length ?? 0) + JSON.stringify((body as { tools?: unknown }).tools ?? []).length) / 4);
    if (tokens > m.window) {
      state.overflows++;
      return jsonError(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${m.window} maximum` } }));
    }
    state.largest = Math.max(state.largest, tokens);
    if (body.system?.startsWith(SUMMARY_MARK)) {
      state.summaries++;
      const text = m.summary ? m.summary(req) : `Task: read notes.txt again and again. Done ${work} reads so far. Next: keep reading.`;
      return text === null ? jsonError(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'summary refused' } })) : sse(anthropicStream([{ text }], { inputTokens: tokens, outputTokens: 50 }));
    }
    if (work === m.calls && m.last) {
      work++;
      return sse(anthropicStream([{ id: 'toolu_last', ...m.last }], { inputTokens: tokens, outputTokens: 20 }));
    }
    if (work >= m.calls) return sse(anthropicStream([{ text: `All ${work} reads done.` }], { inputTokens: tokens, outputTokens: 10 }));
    work++;
    return sse(anthropicStream([{ id: `toolu_w${work}`, name: 'Read', input: { file_path: 'notes.txt' } }], { inputTokens: tokens, outputTokens: 20 }));
  });
  return { f, state, work: () => work };
}

async function boot(options: Parameters<typeof startServer>[1] = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.1' }, { ...FAST, ...options });
  servers.push(t);
  return t;
}

async function newSession(t: TestServer, f: FakeServer, extra: Record<string, unknown> = {}, model: Record<string, unknown> = {}) {
  const res = await t.api.post('/v1/sessions', {
    model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'k', max_tokens: 256, max_turns: 250, context_window: 16_000, ...model },
    tools: ['Read'],
    permission_mode: 'acceptEdits',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // 2,000 characters: each read adds about 500 tokens to the conversation.
  await fs.writeFile(path.join(res.body.workspace, 'notes.txt'), `${'a line of notes that the agent keeps reading\n'.repeat(44)}`);
  return res.body;
}

async function events(t: TestServer, sessionId: string, type: string) {
  return ((await t.api.get(`/v1/sessions/${sessionId}/export`)).body.events as { type: string }[]).filter((e) => e.type === type) as Record<string, unknown>[];
}

describe('compaction', { timeout: 120_000 }, () => {
  it('a 200-call turn compacts as it goes and completes, never passing the window; the full transcript stays', async () => {
    const m = await windowedModel({ window: 16_000, calls: 200 });
    const t = await boot();
    const s = await newSession(t, m.f);
    expect(s.compaction).toEqual({ auto: true, threshold: 0.8 });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=120`, { prompt: 'Read notes.txt 200 times.' })).body;
    expect(turn.status, JSON.stringify(turn.error)).toBe('completed');
    expect(turn.model_calls).toBe(201);
    expect(m.state.overflows).toBe(0);
    expect(m.state.largest).toBeLessThanOrEqual(16_000);
    // Every call and result stays in the turn's own transcript.
    expect(turn.tool_uses).toHaveLength(200);
    expect(turn.messages.filter((x: { role: string }) => x.role === 'assistant')).toHaveLength(201);
    const done = await events(t, s.id, 'compaction.completed');
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(done.every((e) => (e.tokens_after as number) <= (e.tokens_before as number) * 0.8)).toBe(true);
    expect(new Set(done.map((e) => e.stage))).toEqual(new Set(['elided', 'summarised']));
    expect(done.some((e) => e.summary_sha256 !== null && e.elided_results as number > 0)).toBe(true);
    expect(turn.compaction).toMatchObject({ trigger: 'auto', id: done.at(-1)!.compaction_id });
    // What stands for the past names where a left-out result stays.
    expect(JSON.stringify(turn.compaction.messages)).toMatch(/Compacted: the result of Read \(\d+ characters, sha256 [0-9a-f]{16}\) was left out to save context/);
    // The next turn starts from the compaction, not from the whole transcript.
    m.f.reset();
    m.f.reply(sse(anthropicStream([{ text: 'Still here.' }])));
    const next = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'Anything left?' })).body;
    expect(next.status).toBe('completed');
    const sent = JSON.parse(m.f.received[0]!.body) as { messages: unknown[] };
    expect(Math.ceil(JSON.stringify(sent.messages).length / 4)).toBeLessThan(16_000);
    expect(JSON.stringify(sent.messages)).toContain('This conversation was compacted');
    const session = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    expect(session.usage.model_calls).toBe(201 + m.state.summaries + 1);
  });

  it('a provider overflow is met by one compaction and one retry', async () => {
    // The session believes the window is large; the provider's is small.
    const m = await windowedModel({ window: 6_000, calls: 14 });
    const t = await boot();
    const s = await newSession(t, m.f, {}, { context_window: 1_000_000 });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'Read notes.txt.' })).body;
    expect(turn.status, JSON.stringify(turn.error)).toBe('completed');
    expect(m.state.overflows).toBeGreaterThanOrEqual(1);
    const done = await events(t, s.id, 'compaction.completed');
    expect(done.length).toBe(m.state.overflows);
    expect(done.every((e) => e.trigger === 'overflow')).toBe(true);
  });

  it('a spiral — summaries that do not shrink — ends in context_exhausted, and says why', async () => {
    const m = await windowedModel({ window: 16_000, calls: 100, summary: () => 'x'.repeat(60_000) });
    const t = await boot();
    const s = await newSession(t, m.f);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'Read notes.txt.' })).body;
    expect(turn.status).toBe('failed');
    expect(turn.error.code).toBe('context_exhausted');
    expect(turn.error.message).toMatch(/a compaction must remove at least 20%/);
    expect(m.state.summaries).toBe(1);
    const failed = await events(t, s.id, 'compaction.failed');
    expect(failed).toHaveLength(1);
    // The transcript is whole: every call answered.
    expect(turn.results).toHaveLength(turn.tool_uses.length);
  });

  it('a summary the model fails to give is tried once more, then the turn fails clearly', async () => {
    const m = await windowedModel({ window: 16_000, calls: 100, summary: () => null });
    const t = await boot();
    const s = await newSession(t, m.f);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'Read notes.txt.' })).body;
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'context_exhausted' } });
    expect(turn.error.message).toMatch(/the summary's model call failed: .*summary refused.* \(twice\)/);
    expect(m.state.summaries).toBe(2);
  });

  it('auto: false is kept, overflow included: no compaction, context_exhausted naming the way out', async () => {
    const m = await windowedModel({ window: 6_000, calls: 100 });
    const t = await boot();
    const s = await newSession(t, m.f, { compaction: { auto: false } });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'Read notes.txt.' })).body;
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'context_exhausted' } });
    expect(turn.error.message).toContain('compaction.auto is false');
    expect(await events(t, s.id, 'compaction.started')).toEqual([]);
    expect(m.state.overflows).toBe(1);
  });

  it('on demand: compacts between turns with the instructions given; PreCompact may refuse, PostCompact sees the summary', async () => {
    const m = await windowedModel({ window: 100_000, calls: 6 });
    const seen: HookInput[] = [];
    let refuse = true;
    const t = await boot({
      hooks: [
        { event: 'PreCompact', callback: (input) => (seen.push(input), refuse ? { decision: 'deny', reason: 'not now' } : { additionalContext: 'Keep the file names.' }) },
        { event: 'PostCompact', callback: (input) => void seen.push(input) },
      ],
    });
    const s = await newSession(t, m.f);
    // Nothing to compact yet.
    expect((await t.api.post(`/v1/sessions/${s.id}/compact`, {})).body).toMatchObject({ compacted: false, turn_id: null });
    const first = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { prompt: 'Read notes.txt.' })).body;
    expect(first.status).toBe('completed');
    const refused = await t.api.post(`/v1/sessions/${s.id}/compact`, { instructions: 'Stress the reads.' });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('a PreCompact hook refused it: not now');
    expect(seen[0]).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'Stress the reads.' });
    refuse = false;
    const done = await t.api.post(`/v1/sessions/${s.id}/compact`, { instructions: 'Stress the reads.' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ compacted: true, turn_id: first.id, compaction: { trigger: 'manual', stage: 'summarised', covers: first.messages.length } });
    const ask = m.f.received.at(-1)!.body;
    expect(ask).toContain('Stress the reads.');
    expect(ask).toContain('Keep the file names.');
    const post = seen.find((x) => x.hook_event_name === 'PostCompact')!;
    expect(post).toMatchObject({ trigger: 'manual', compact_summary: expect.stringContaining('Task: read notes.txt') });
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${first.id}`)).body.compaction.id).toBe(done.body.compaction.id);
    // Bad bodies change nothing.
    for (const body of [{ instructions: '' }, { instructions: 5 }, { other: 1 }]) expect((await t.api.post(`/v1/sessions/${s.id}/compact`, body)).status).toBe(400);
  });

  it('a PreCompact hook that never answers is stopped by its timeout: the compaction is refused, nothing hangs', async () => {
    const m = await windowedModel({ window: 100_000, calls: 2 });
    const t = await boot({ hooks: [{ event: 'PreCompact', timeoutMs: 200, callback: () => new Promise<never>(() => undefined) }] });
    const s = await newSession(t, m.f);
    expect((await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { prompt: 'Read notes.txt.' })).body.status).toBe('completed');
    const res = await t.api.post(`/v1/sessions/${s.id}/compact`, {});
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/a PreCompact hook refused it: .*timed out after 200 ms/);
    expect(m.state.summaries).toBe(0);
  });

  it('refuses compaction settings out of range and a window out of range', async () => {
    const t = await boot();
    for (const body of [
      { compaction: { threshold: 0.2 } },
      { compaction: { threshold: 0.99 } },
      { compaction: { auto: 'yes' } },
      { compaction: { extra: true } },
      { model: { provider: 'scripted', model: 'x', script: [], context_window: 10 } },
    ]) {
      const res = await t.api.post('/v1/sessions', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const noModel = (await t.api.post('/v1/sessions', {})).body;
    expect((await t.api.post(`/v1/sessions/${noModel.id}/compact`, {})).status).toBe(400);
  });

  it('another tenant\'s session is not found, a read key may not compact, and a running turn refuses it', async () => {
    const m = await windowedModel({ window: 100_000, calls: 1 });
    const [a, b, reader] = [newKey('a'), newKey('b'), newKey('r')];
    const t = await startWithKeys(
      [
        { key: a, tenant: 'acme', scopes: ['write'] },
        { key: b, tenant: 'other', scopes: ['admin'] },
        { key: reader, tenant: 'acme', scopes: ['read'] },
      ],
      { NORMA_EGRESS_ALLOW: '127.0.0.1' },
      FAST,
    );
    servers.push(t);
    const acme = clientFor(t.url, a);
    const s = (await acme.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: m.f.origin, api_key: 'k' }, tools: ['Read', 'Write'] })).body;
    expect((await clientFor(t.url, b).post(`/v1/sessions/${s.id}/compact`, {})).status).toBe(404);
    expect((await clientFor(t.url, reader).post(`/v1/sessions/${s.id}/compact`, {})).status).toBe(403);
    // A turn waiting for a person has not ended: compaction waits for it.
    const paused = (await acme.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Write', input: { file_path: 'x', content: 'y' } }] })).body;
    expect(paused.status).toBe('awaiting_permission');
    const busy = await acme.post(`/v1/sessions/${s.id}/compact`, {});
    expect(busy.status).toBe(409);
    expect(busy.body.detail).toContain('compact when it has ended');
    const t2 = await acme.patch(`/v1/sessions/${s.id}`, { compaction: { threshold: 0.6 } });
    expect(t2.body.compaction).toEqual({ auto: true, threshold: 0.6 });
  });

  it('a turn that compacted, paused on a permission, goes on after a restart from its compaction', async () => {
    const m = await windowedModel({ window: 16_000, calls: 40, last: { name: 'Write', input: { file_path: 'out.txt', content: 'done' } } });
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-compact-restart-'));
    try {
      const a = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.1' }, { ...FAST, dataDir });
      const s = await newSession(a, m.f, { permission_mode: 'default', tools: ['Read', 'Write'] });
      const paused = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'Read notes.txt 40 times, then write out.txt.' })).body;
      expect(paused.status, JSON.stringify(paused.error)).toBe('awaiting_permission');
      expect(paused.compaction).toBeDefined();
      await a.close();
      const b = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.1' }, { ...FAST, dataDir });
      servers.push(b);
      const before = m.f.received.length;
      expect((await b.api.post(`/v1/sessions/${s.id}/permissions/${paused.pending[0]}`, { behavior: 'allow' })).status).toBe(200);
      const done = await until(async () => {
        const turn = (await b.api.get(`/v1/sessions/${s.id}/turns/${paused.id}`)).body;
        return turn.status === 'completed' ? turn : undefined;
      });
      expect(done.model_calls).toBe(42);
      // The call after the restart sent the compaction, not the whole transcript.
      const sent = m.f.received.slice(before).map((r) => r.body);
      expect(sent.length).toBeGreaterThan(0);
      const head = JSON.stringify(paused.compaction.messages[0].content).slice(0, 200);
      for (const body of sent) {
        const messages = JSON.parse(body).messages as { content: unknown }[];
        expect(JSON.stringify(messages[0]!.content).slice(0, 200)).toBe(head);
        expect(messages.length).toBeLessThan(paused.messages.length);
      }
      expect(m.state.overflows).toBe(0);
      expect(await fs.readFile(path.join(s.workspace, 'out.txt'), 'utf8')).toBe('done');
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

async function until<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}
