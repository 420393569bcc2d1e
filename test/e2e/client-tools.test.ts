// Tools the client runs, over HTTP and SSE: a call pauses the turn (`awaiting_input`,
// `client_tool.requested`), the client's answer is the tool_result the model sees next; error
// answers, the timeout, a cancelled turn, rules and hooks, the output cap, a restart, a subagent,
// the tool list, and the inbox that leaves them out. Bad declarations and bad answers:
// client-tools-input.test.ts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { closeAll, startServer, type TestServer } from '../helpers/server.js';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';

let servers: TestServer[] = [];
let streams: SseStream[] = [];
let dirs: string[] = [];
let crashed: ServerProcess[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const p of crashed) await p.kill();
  crashed = [];
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});

async function boot(dataDir?: string): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_SHUTDOWN_GRACE_S: '2' }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}
async function sse(t: TestServer, sessionId: string, after?: string): Promise<SseStream> {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, after !== undefined ? { lastEventId: after } : {});
  streams.push(s);
  return s;
}

const LOOKUP = {
  name: 'lookup_order',
  description: 'Finds an order in the client\'s own database by its id.',
  input_schema: { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Z]-[0-9]+$' } }, required: ['id'], additionalProperties: false },
};
const call = (id = 'A-1', toolUseId = 'toolu_c') => ({ type: 'tool_use', id: toolUseId, name: 'lookup_order', input: { id } });
const scripted = (script: unknown[], extra: Record<string, unknown> = {}) => ({ model: { provider: 'scripted', model: 'demo', script, ...extra } });

async function session(t: TestServer, body: Record<string, unknown> = {}) {
  const res = await t.api.post('/v1/sessions', { tools: ['Read'], client_tools: [LOOKUP], ...body });
  expect(res.status).toBe(201);
  return res.body;
}
/** A direct turn calling the client tool; it is paused when this returns. */
async function pausedCall(t: TestServer, sid: string, input: unknown = { id: 'A-1' }) {
  const turn = (await t.api.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ id: 'toolu_c', name: 'lookup_order', input }] })).body;
  expect(turn).toMatchObject({ status: 'awaiting_input', pending: [expect.stringMatching(/^ct_/)] });
  return { turn, requestId: turn.pending[0] as string };
}
const textOf = (r: { content: { text?: string }[] }) => r.content.map((c) => c.text ?? '').join('\n');

describe('a client tool in a prompt turn', () => {
  it('pauses the turn, is announced and listed, and the client\'s answer is the tool_result the model sees next', async () => {
    const t = await boot();
    const s = await session(t, scripted([{ content: [{ type: 'text', text: 'Let me look.' }, call()] }, { content: [{ type: 'text', text: 'It has shipped.' }] }]));
    expect(s.client_tools).toEqual(['lookup_order']);
    const events = await sse(t, s.id);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'Where is order A-1?' })).body;
    expect(turn).toMatchObject({ status: 'awaiting_input', pending: [expect.stringMatching(/^ct_/)] });
    const id = turn.pending[0];
    const requested = await events.waitFor((e) => e.event === 'client_tool.requested');
    expect(requested.data.request).toMatchObject({ id, turn_id: turn.id, tool_use_id: 'toolu_c', name: 'lookup_order', input: { id: 'A-1' }, status: 'pending' });
    expect((await t.api.get(`/v1/sessions/${s.id}/client-tools?status=pending`)).body.items.map((r: { id: string }) => r.id)).toEqual([id]);
    expect((await t.api.get(`/v1/sessions/${s.id}/client-tools/${id}`)).body).toMatchObject({ id, status: 'pending' });
    // The client's, not a person's: the inbox and the session's pending count leave it out.
    expect((await t.api.get('/v1/pending')).body.items).toEqual([]);
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body.pending).toBe(0);

    const answered = await t.api.post(`/v1/sessions/${s.id}/client-tools/${id}`, { content: 'Order A-1: shipped on Monday.' });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id, status: 'answered', resolved_by: 'client', is_error: false });
    const done = await events.waitFor((e) => e.event === 'turn.completed');
    const messages = done.data.turn.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_c', is_error: false, content: [{ type: 'text', text: 'Order A-1: shipped on Monday.' }] });
    expect(messages[3].content).toEqual([{ type: 'text', text: 'It has shipped.' }]);
    expect(events.events.find((e) => e.event === 'client_tool.resolved')!.data.request).toMatchObject({ id, status: 'answered' });
    // Answered once: a second answer is a conflict.
    expect((await t.api.post(`/v1/sessions/${s.id}/client-tools/${id}`, { content: 'again' })).status).toBe(409);
  });

  it('a subagent has the session\'s client tools; its call waits for the client the same way', async () => {
    const t = await boot();
    const s = await session(t, {
      tools: ['Read', 'Agent'],
      ...scripted([{ content: [{ type: 'tool_use', id: 'toolu_a', name: 'Agent', input: { description: 'look up', prompt: 'Find order B-2.' } }] }, { content: [{ type: 'text', text: 'Done.' }] }], {
        subagent_script: [{ content: [call('B-2', 'toolu_sub')] }, { content: [{ type: 'text', text: 'B-2 is in the warehouse.' }] }],
      }),
    });
    const events = await sse(t, s.id);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'Where is B-2?' })).body;
    expect(turn.status).toBe('awaiting_input');
    const requested = await events.waitFor((e) => e.event === 'client_tool.requested');
    expect(requested.data.request).toMatchObject({ tool_use_id: 'toolu_sub', name: 'lookup_order', input: { id: 'B-2' } });
    await t.api.post(`/v1/sessions/${s.id}/client-tools/${requested.data.request.id}`, { content: 'warehouse' });
    const done = await events.waitFor((e) => e.event === 'turn.completed');
    expect(textOf(done.data.turn.results[0])).toBe('B-2 is in the warehouse.');
    const sub = events.events.find((e) => e.event === 'tool.completed' && e.data.tool_use_id === 'toolu_sub')!;
    expect(sub.data).toMatchObject({ parent_tool_use_id: 'toolu_a', result: { is_error: false, content: [{ type: 'text', text: 'warehouse' }] } });
  });

  it('after a restart the request is still pending, is answered, and the model gets that answer', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-ct-restart-'));
    dirs.push(dataDir);
    const a = await boot(dataDir);
    const s = await session(a, scripted([{ content: [call()] }, { content: [{ type: 'text', text: 'Thanks.' }] }]));
    const turn = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'Look it up.' })).body;
    expect(turn.status).toBe('awaiting_input');
    const id = turn.pending[0];
    await a.close();

    const b = await boot(dataDir);
    expect((await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body).toMatchObject({ status: 'awaiting_input', pending: [id] });
    const events = await sse(b, s.id, '0');
    await events.waitFor((e) => e.event === 'turn.resumed' && e.data.pending.includes(id));
    expect((await b.api.post(`/v1/sessions/${s.id}/client-tools/${id}`, { content: 'after the restart' })).status).toBe(200);
    const done = await events.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.messages[2].content[0]).toMatchObject({ tool_use_id: 'toolu_c', is_error: false, content: [{ type: 'text', text: 'after the restart' }] });
    // One request for the call, not a second one after the restart.
    expect(events.events.filter((e) => e.event === 'client_tool.requested')).toHaveLength(1);
    expect((await b.api.get(`/v1/sessions/${s.id}/client-tools`)).body.items).toHaveLength(1);
  });
});

describe('a crash after the client answered', () => {
  // The answer is stored when it is taken; the call's result only once its PostToolUse hooks are
  // done. A SIGKILL in between must neither lose the answer nor ask the client again.
  for (const kind of ['direct', 'prompt'] as const) {
    it(`a ${kind} turn killed while its PostToolUse hook runs completes from the stored answer after the restart`, async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-ct-crash-'));
      dirs.push(dataDir);
      const env = { NORMA_DATA_DIR: dataDir, NORMA_SANDBOX: 'off' };
      const a = await launchServer(env);
      crashed.push(a);
      // The hook's first run says so and then waits (bounded) for the test; any later run passes at once.
      const hook = 'if [ -e .hook-ran ]; then exit 0; fi; touch .hook-ran; for i in $(seq 1 300); do [ -e .release ] && exit 0; sleep 0.1; done';
      const body = {
        tools: ['Read'],
        client_tools: [LOOKUP],
        hooks: { PostToolUse: [{ matcher: 'lookup_order', hooks: [{ type: 'command', command: hook, timeout_s: 60 }] }] },
        ...(kind === 'prompt' ? scripted([{ content: [call()] }, { content: [{ type: 'text', text: 'It shipped.' }] }]) : {}),
      };
      const s = (await a.api.post('/v1/sessions', body)).body;
      const turn = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, kind === 'prompt' ? { prompt: 'Where is A-1?' } : { tool_uses: [{ id: 'toolu_c', name: 'lookup_order', input: { id: 'A-1' } }] })).body;
      expect(turn).toMatchObject({ status: 'awaiting_input', pending: [expect.stringMatching(/^ct_/)] });
      const id = turn.pending[0];
      expect((await a.api.post(`/v1/sessions/${s.id}/client-tools/${id}`, { content: 'Order A-1: shipped on Monday.' })).status).toBe(200);
      // The hook runs: the answer is taken, the result is not stored yet.
      await expect.poll(() => fs.access(path.join(s.workspace, '.hook-ran')).then(() => true, () => false), { timeout: 15_000 }).toBe(true);
      expect((await a.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body.results).toEqual([]);
      await a.kill();
      await fs.writeFile(path.join(s.workspace, '.release'), '');

      const b = await launchServer(env);
      crashed.push(b);
      const done = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=30`)).body;
      expect(done.status).toBe('completed');
      const result = kind === 'prompt' ? done.messages[2].content[0] : done.results[0];
      expect(result).toMatchObject({ tool_use_id: 'toolu_c', is_error: false, content: [{ type: 'text', text: 'Order A-1: shipped on Monday.' }] });
      if (kind === 'prompt') expect(done.messages[3].content).toEqual([{ type: 'text', text: 'It shipped.' }]);
      // Asked once: the one request, answered, and no second one after the restart.
      const requests = (await b.api.get(`/v1/sessions/${s.id}/client-tools`)).body.items;
      expect(requests).toMatchObject([{ id, status: 'answered', is_error: false }]);
      const events = await openSse(`${b.url}/v1/sessions/${s.id}/events`, { lastEventId: '0' });
      streams.push(events);
      await events.waitFor((e) => e.event === 'turn.completed');
      expect(events.events.filter((e) => e.event === 'client_tool.requested')).toHaveLength(1);
      expect(events.events.find((e) => e.event === 'turn.resumed')?.data.pending).toEqual([]);
    });
  }
});

describe('how a call of a client tool ends', () => {
  it('an error answer with blocks is an error result carrying those blocks', async () => {
    const t = await boot();
    const s = await session(t);
    const { turn, requestId } = await pausedCall(t, s.id);
    const blocks = [{ type: 'text', text: 'not found' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }];
    expect((await t.api.post(`/v1/sessions/${s.id}/client-tools/${requestId}`, { content: blocks, is_error: true })).body).toMatchObject({ status: 'answered', is_error: true });
    const done = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=10`)).body;
    expect(done.status).toBe('completed');
    expect(done.results[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_c', is_error: true, content: blocks });
  });

  it('input that does not match the tool\'s schema is an error result at once; the client is not asked', async () => {
    const t = await boot();
    const s = await session(t);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'lookup_order', input: { id: 'nope', extra: 1 } }] })).body;
    expect(turn.status).toBe('completed');
    expect(turn.results[0].is_error).toBe(true);
    expect(textOf(turn.results[0])).toMatch(/pattern/);
    expect(textOf(turn.results[0])).toContain('unknown property "extra"');
    expect((await t.api.get(`/v1/sessions/${s.id}/client-tools`)).body.items).toEqual([]);
  });

  it('nobody answering within question_timeout_s is an error result saying so', async () => {
    const t = await boot();
    const s = await session(t, { question_timeout_s: 0.3 });
    const events = await sse(t, s.id);
    await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'lookup_order', input: { id: 'A-1' } }] });
    const done = await events.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results[0].is_error).toBe(true);
    expect(textOf(done.data.turn.results[0])).toContain('No result from lookup_order: the client did not answer within 0.3 s (question_timeout_s)');
    const [request] = (await t.api.get(`/v1/sessions/${s.id}/client-tools`)).body.items;
    const requestId = request.id;
    expect(request).toMatchObject({ status: 'timed_out', resolved_by: 'timeout' });
    expect((await t.api.post(`/v1/sessions/${s.id}/client-tools/${requestId}`, { content: 'late' })).status).toBe(409);
  });

  it('a cancelled turn resolves its request as cancelled', async () => {
    const t = await boot();
    const s = await session(t);
    const events = await sse(t, s.id);
    const { turn, requestId } = await pausedCall(t, s.id);
    expect((await t.api.post(`/v1/sessions/${s.id}/turns/${turn.id}/cancel`, {})).status).toBe(200);
    const cancelled = await events.waitFor((e) => e.event === 'turn.cancelled');
    expect(textOf(cancelled.data.turn.results[0])).toMatch(/^Cancelled/);
    expect((await events.waitFor((e) => e.event === 'client_tool.resolved')).data.request).toMatchObject({ id: requestId, status: 'cancelled', resolved_by: 'cancel' });
    expect((await t.api.post(`/v1/sessions/${s.id}/client-tools/${requestId}`, { content: 'too late' })).status).toBe(409);
  });

  it('a long answer passes the output cap; the whole text is kept as a spill file', async () => {
    const t = await boot();
    const s = await session(t, { output_cap_chars: 100 });
    const { turn, requestId } = await pausedCall(t, s.id);
    const long = 'line of the client\'s answer\n'.repeat(400);
    await t.api.post(`/v1/sessions/${s.id}/client-tools/${requestId}`, { content: long });
    const done = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=10`)).body;
    const result = done.results[0];
    expect(result.truncation).toMatchObject({ total_chars: long.length, shown_chars: 100, output_id: expect.stringMatching(/^out_/) });
    expect(result.content[0].text).toBe(long.slice(0, 100));
    const full = await fetch(`${t.url}/v1/sessions/${s.id}/outputs/${result.truncation.output_id}`);
    expect(await full.text()).toBe(long);
  });
});

describe('rules and hooks apply to client tools as to any tool', () => {
  it('a deny rule denies without a request; an ask rule asks a person first; plan mode refuses it', async () => {
    const t = await boot();
    const denied = await session(t, { disallowed_tools: ['lookup_order'] });
    const d = (await t.api.post(`/v1/sessions/${denied.id}/turns?wait=10`, { tool_uses: [{ name: 'lookup_order', input: { id: 'A-1' } }] })).body;
    expect(d.status).toBe('completed');
    expect(textOf(d.results[0])).toContain('denied by rule "lookup_order"');
    expect((await t.api.get(`/v1/sessions/${denied.id}/client-tools`)).body.items).toEqual([]);

    const asked = await session(t, { ask_rules: ['lookup_order'] });
    const a = (await t.api.post(`/v1/sessions/${asked.id}/turns?wait=10`, { tool_uses: [{ id: 'toolu_c', name: 'lookup_order', input: { id: 'A-1' } }] })).body;
    expect(a).toMatchObject({ status: 'awaiting_permission', pending: [expect.stringMatching(/^perm_/)] });
    await t.api.post(`/v1/sessions/${asked.id}/permissions/${a.pending[0]}`, { behavior: 'allow' });
    const after = (await t.api.get(`/v1/sessions/${asked.id}/turns/${a.id}?wait=10`)).body;
    expect(after).toMatchObject({ status: 'awaiting_input', pending: [expect.stringMatching(/^ct_/)] });

    const planning = await session(t, { permission_mode: 'plan' });
    const p = (await t.api.post(`/v1/sessions/${planning.id}/turns?wait=10`, { tool_uses: [{ name: 'lookup_order', input: { id: 'A-1' } }] })).body;
    expect(textOf(p.results[0])).toContain('plan mode');
  });

  it('a PreToolUse hook sees the call with its input, and its block keeps the client from being asked', async () => {
    const t = await boot();
    const s = await session(t, { hooks: { PreToolUse: [{ matcher: 'lookup_order', hooks: [{ type: 'command', command: 'cat >&2; exit 2' }] }] } });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'lookup_order', input: { id: 'A-1' } }] })).body;
    expect(turn.results[0].is_error).toBe(true);
    const text = textOf(turn.results[0]);
    expect(text).toContain('Blocked by PreToolUse hook');
    expect(text).toContain('"tool_name":"lookup_order"');
    expect(text).toContain('"tool_input":{"id":"A-1"}');
    expect((await t.api.get(`/v1/sessions/${s.id}/client-tools`)).body.items).toEqual([]);
  });
});

describe('the tool list', () => {
  it('lists client tools with client: true and their schema, for the model and after the session closed', async () => {
    const t = await boot();
    const s = await session(t);
    const tools = (await t.api.get(`/v1/sessions/${s.id}/tools`)).body;
    expect(tools.find((x: { name: string }) => x.name === 'lookup_order')).toEqual({ ...LOOKUP, client: true });
    expect(tools.find((x: { name: string }) => x.name === 'Read').client).toBeUndefined();
    const all = (await t.api.get(`/v1/sessions/${s.id}/tools?include=deferred`)).body;
    expect(all.find((x: { name: string }) => x.name === 'lookup_order')).toMatchObject({ client: true, deferred: false, unlocked: true });
    await t.api.delete(`/v1/sessions/${s.id}`);
    const closed = (await t.api.get(`/v1/sessions/${s.id}/tools`)).body;
    expect(closed.find((x: { name: string }) => x.name === 'lookup_order')).toEqual({ ...LOOKUP, client: true });
  });
});
