// Prompt turns through the HTTP API against loopback fakes of the real provider endpoints: the
// wire format both ways (the tool_result the model gets back is paired with its tool_use), a
// retried overload, a stream cut mid-way, cancellation of a hanging stream, the egress guard on a
// session-supplied base URL, and keys kept out of every answer.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicStream } from '../helpers/model-streams.js';
import { FakeServer, fixture, jsonError, sse } from '../model/fake-server.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
});

const FAST = { modelOptions: { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } } };

async function fake(): Promise<FakeServer> {
  const f = await new FakeServer().start();
  fakes.push(f);
  return f;
}
async function boot(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer(env, FAST);
  servers.push(t);
  return t;
}


/** An OpenAI Chat Completions stream with one tool call. */
function openaiToolStream(id: string, name: string, args: unknown): string {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-test', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const json = JSON.stringify(args);
  return (
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(0, 5) } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(5) } }] }) +
    chunk({}, 'tool_calls') +
    'data: [DONE]\n\n'
  );
}

describe('prompt turns against a fake Anthropic endpoint', () => {
  it('runs the loop over the real wire format, retrying an overload and a cut-off stream', async () => {
    const f = await fake();
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (
      await t.api.post('/v1/sessions', {
        model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'sk-ant-test-key' },
        system_prompt: 'You are terse.',
      })
    ).body;
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'alpha\n');
    const first = anthropicStream([{ text: 'Reading.' }, { id: 'toolu_01A', name: 'Read', input: { file_path: 'a.txt' } }], { stop: 'tool_use' });
    f.reply(
      jsonError(529, fixture('anthropic/529.json')),
      sse(first, { cutAt: Math.floor(first.length / 2), then: 'destroy' }),
      sse(first, { split: 7 }),
      sse(fixture('anthropic/text.sse')),
    );
    const events = await openSse(`${t.url}/v1/sessions/${s.id}/events`);
    streams.push(events);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'Read a.txt' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2, stop_reason: 'end_turn' });
    expect(turn.results[0]).toMatchObject({ tool_use_id: 'toolu_01A', is_error: false });
    expect(f.received).toHaveLength(4);

    // What the provider got: the real headers and body, and on the last call the tool_result paired with its tool_use.
    const req = f.received[2]!;
    expect(req.url).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('sk-ant-test-key');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    const body1 = JSON.parse(req.body);
    expect(body1).toMatchObject({ model: 'claude-test', stream: true, system: 'You are terse.', max_tokens: 8192 });
    expect(body1.tools.map((x: { name: string }) => x.name)).toEqual(s.tools);
    expect(body1.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Read a.txt' }] }]);
    const body2 = JSON.parse(f.received[3]!.body);
    expect(body2.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body2.messages[1].content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_01A', name: 'Read', input: { file_path: 'a.txt' } },
    ]);
    expect(body2.messages[2].content).toHaveLength(1);
    expect(body2.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01A', is_error: false });
    expect(JSON.stringify(body2.messages[2].content[0].content)).toContain('alpha');

    // Retries told clients to drop the partial text; message.completed carries the final message.
    await events.waitFor((e) => e.event === 'turn.completed');
    expect(events.events.some((e) => e.event === 'message.delta' && e.data.reset === true)).toBe(true);
    const done = events.events.filter((e) => e.event === 'message.completed');
    expect(done[0]!.data.message.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_01A', input: { file_path: 'a.txt' } });

    // The next prompt turn sends the whole conversation so far, then the new prompt.
    f.reply(sse(anthropicStream([{ text: 'Still alpha.' }], { stop: 'end_turn' })));
    const next = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'And now?' })).body;
    expect(next).toMatchObject({ status: 'completed', model_calls: 1 });
    const body3 = JSON.parse(f.received[4]!.body);
    expect(body3.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(body3.messages.slice(0, 3)).toEqual(body2.messages);
    expect(body3.messages[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'And now?' }] });
  });

  it('a session-supplied base URL passes the egress guard: loopback is refused unless allowlisted', async () => {
    const f = await fake();
    f.always(sse(fixture('anthropic/text.sse')));
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'k-123456' } })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'provider_unreachable' } });
    expect(turn.error.message).toContain('egress');
    expect(turn.error.message).toContain('loopback');
    expect(f.received).toHaveLength(0);
  });

  it('an auth failure fails the turn without retrying and without the key in any answer', async () => {
    const f = await fake();
    f.always(jsonError(401, fixture('anthropic/401.json')));
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'sk-ant-secret-999' } })).body;
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' });
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'provider_auth' } });
    expect(res.body.error.message).toContain('401');
    expect(f.received).toHaveLength(1);
    const everything = [res.text, (await t.api.get(`/v1/sessions/${s.id}/turns`)).text, await fetch(`${t.url}/v1/sessions/${s.id}/export`).then((r) => r.text())];
    for (const x of everything) expect(x).not.toContain('sk-ant-secret-999');
  });

  it('a provider error that echoes most of the key after a long preamble leaves none of it in the turn, events or export', async () => {
    const key = 'sk-ant-api03-Zq8vLm2Xr7TnB4wKs9PdYc1HgFj6UeA0oRi';
    const f = await fake();
    // 480 characters first, then 42 of the key's 46: a message cut before redaction kept them.
    f.always(jsonError(401, JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `${'x'.repeat(480)} invalid x-api-key ${key.slice(0, 42)}` } })));
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: key } })).body;
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' });
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'provider_auth' } });
    const everything = [res.text, (await t.api.get(`/v1/sessions/${s.id}/turns`)).text, await fetch(`${t.url}/v1/sessions/${s.id}/export`).then((r) => r.text())];
    for (const x of everything) for (let i = 0; i + 12 <= key.length; i++) expect(x).not.toContain(key.slice(i, i + 12));
  });

  it('cancels a turn whose model stream hangs: the provider connection is closed', async () => {
    const f = await fake();
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'k-123456' } })).body;
    const partial = anthropicStream([{ text: 'Thinking about it' }], { stop: 'end_turn' });
    f.reply(sse(partial, { cutAt: partial.indexOf('event: content_block_stop'), then: 'hang' }));
    const events = await openSse(`${t.url}/v1/sessions/${s.id}/events`);
    streams.push(events);
    const started = (await t.api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'go' })).body;
    const delta = await events.waitFor((e) => e.event === 'message.delta');
    expect(delta.data.text).toBe('Thinking about it');
    const cancelled = (await t.api.post(`/v1/sessions/${s.id}/turns/${started.id}/cancel`, {})).body;
    expect(cancelled.status).toBe('cancelled');
    const closed = await f.received[0]!.closed;
    expect(closed.finished).toBe(false); // the server went away before the provider finished
  });
});

describe('prompt turns against a fake OpenAI-compatible endpoint (server default model)', () => {
  it('sends tool results as tool messages paired by tool_call_id', async () => {
    const f = await fake();
    const t = await boot({ NORMA_MODEL_PROVIDER: 'openai', NORMA_MODEL: 'llama-local', NORMA_MODEL_BASE_URL: `${f.origin}/v1` });
    const s = (await t.api.post('/v1/sessions', {})).body;
    expect(s.model).toMatchObject({ provider: 'openai', model: 'llama-local', source: 'server', has_api_key: false });
    await fs.writeFile(path.join(s.workspace, 'b.txt'), 'bravo\n');
    f.reply(sse(openaiToolStream('call_1', 'Read', { file_path: 'b.txt' }), { split: 11 }), sse(fixture('openai/text.sse')));
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'Read b.txt' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2 });
    expect(turn.results[0]).toMatchObject({ tool_use_id: 'call_1', is_error: false });
    expect(f.received[0]!.url).toBe('/v1/chat/completions');
    expect(f.received[0]!.headers.authorization).toBeUndefined(); // no key configured, none sent
    const second = JSON.parse(f.received[1]!.body);
    expect(second).toMatchObject({ model: 'llama-local', stream: true });
    expect(second.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.messages[1].tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"b.txt"}' } }]);
    expect(second.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(second.messages[2].content).toContain('bravo');
  });

  it('an unreachable operator endpoint fails the turn with a clear message', async () => {
    const f = await fake();
    const origin = f.origin;
    await f.close();
    fakes = [];
    const t = await boot({ NORMA_MODEL_PROVIDER: 'openai', NORMA_MODEL: 'm', NORMA_MODEL_BASE_URL: `${origin}/v1` });
    const s = (await t.api.post('/v1/sessions', {})).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'provider_unreachable' } });
    expect(turn.error.message).toContain('ECONNREFUSED');
  });
});
