// The Anthropic provider against a loopback server replaying recorded Messages API streams:
// what it sends (thinking included), how it reads the stream however it is split (thinking
// blocks kept), and how it retries, fails and stops when cancelled.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/model/anthropic.js';
import type { HttpProviderOptions } from '../../src/model/http.js';
import type { Message, ModelRequest } from '../../src/model/provider.js';
import { FakeServer, fixture, jsonError, sse } from './fake-server.js';
import { complete, failure, request } from './harness.js';

const KEY = 'sk-ant-api03-TESTKEY-aBcDeFgHiJkLmNoPqRsTuVwXyZ-0123456789';
const server = new FakeServer();
const providers: AnthropicProvider[] = [];
let slept: number[] = [];

beforeAll(async () => void (await server.start()));
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
  server.reset();
  slept = [];
});
afterAll(() => server.close());

function provider(over: Partial<HttpProviderOptions> = {}): AnthropicProvider {
  const sleep = async (ms: number): Promise<void> => void slept.push(ms);
  const p = new AnthropicProvider({ model: 'claude-sonnet-4-5', baseUrl: server.origin, apiKey: KEY, egress: null, retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 4 }, sleep, ...over });
  providers.push(p);
  return p;
}

const TEXT_DELTAS = ['Bonjour', ' ! Le café', ' ☕ est prêt', ' — 日本語も', 'OK 🙂.'];
const TEXT = TEXT_DELTAS.join('');

describe('AnthropicProvider: reading the stream', () => {
  it('streams a text answer in order, written 7 bytes at a time (each its own chunk)', async () => {
    server.reply(sse(fixture('anthropic/text.sse'), { split: 7 }));
    const { result, texts, retries } = await complete(provider());
    expect(texts).toEqual(TEXT_DELTAS.map((t) => [t, 0]));
    expect(result).toEqual({ content: [{ type: 'text', text: TEXT }], stopReason: 'end_turn', usage: { input_tokens: 21, output_tokens: 18 }, usageReported: true });
    expect(retries).toEqual([]);
  });

  it('reads pieces split inside a JSON string and inside a multi-byte character', async () => {
    const body = fixture('anthropic/text.sse');
    const inString = body.indexOf('"Bonjour"') + 4;
    const inChar = body.indexOf(Buffer.from('☕')) + 1;
    const inEmoji = body.indexOf(Buffer.from('🙂')) + 3;
    server.reply(sse(body, { split: [inString, inChar, inEmoji], delayMs: 5 }));
    const { result, texts } = await complete(provider());
    expect(texts.map(([t]) => t)).toEqual(TEXT_DELTAS);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
  });

  it('assembles a tool_use input streamed in many JSON fragments', async () => {
    server.reply(sse(fixture('anthropic/tool-use.sse'), { split: 13 }));
    const { result, texts } = await complete(provider());
    expect(texts).toEqual([["I'll update", 0], [' the constant.', 0]]);
    expect(result).toEqual({
      content: [
        { type: 'text', text: "I'll update the constant." },
        { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'Edit', input: { path: 'src/main.ts', old_string: 'const a = 1;', new_string: 'const a = 2; // naïve ✓' } },
      ],
      stopReason: 'tool_use',
      usage: { input_tokens: 472, output_tokens: 89 },
      usageReported: true,
    });
  });

  it('keeps two tool uses of one message in order', async () => {
    server.reply(sse(fixture('anthropic/two-tools.sse'), { split: 64 }));
    const { result, texts } = await complete(provider());
    expect(texts).toEqual([]);
    expect(result.content).toEqual([
      { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'Read', input: { file_path: '/work/README.md' } },
      { type: 'tool_use', id: 'toolu_01B4Yd7pQ2mXkR9sLcVn3Wz8', name: 'Bash', input: { command: 'ls -la', description: 'List files' } },
    ]);
    expect(result.stopReason).toBe('tool_use');
    expect(result.usage).toEqual({ input_tokens: 610, output_tokens: 121 });
  });

  it('keeps a thinking block with its signature, streams its text to onThinking, and indexes by place in the returned content', async () => {
    server.reply(sse(fixture('anthropic/thinking.sse'), { split: 50 }));
    const thoughts: [string, number][] = [];
    const { result, texts } = await complete(provider(), { onThinking: (t, i) => thoughts.push([t, i]) });
    expect(thoughts).toEqual([['The user wants a greeting.', 0]]);
    expect(texts).toEqual([['Hello', 1], [' there.', 1]]);
    expect(result.content).toEqual([
      { type: 'thinking', thinking: 'The user wants a greeting.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'text', text: 'Hello there.' },
      { type: 'tool_use', id: 'toolu_01ThInKiNgTool000000001', name: 'Read', input: { file_path: 'x' } },
    ]);
  });

  it('keeps redacted_thinking as it came, drops server-tool blocks, and passes pause_turn through', async () => {
    server.reply(sse(fixture('anthropic/redacted-thinking.sse'), { split: 97 }));
    const thoughts: [string, number][] = [];
    const { result, texts } = await complete(provider(), { onThinking: (t, i) => thoughts.push([t, i]) });
    expect(thoughts).toEqual([['I should look up', 0], [" today's weather.", 0]]);
    expect(texts).toEqual([['Still searching', 2], ['…', 2]]);
    expect(result.content).toEqual([
      { type: 'thinking', thinking: "I should look up today's weather.", signature: 'ErUBCkYIBRgCIkDkTq2pVHF3k5xBwXnq8ZrU0f8dLdHc4n1b+2wR5s/y9hQ0WQm0hFqKq7cT3o1Hh0xJ' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pPmN3tVJ8qT3KgL9rW0Nl' },
      { type: 'text', text: 'Still searching…' },
    ]);
    expect(result.stopReason).toBe('pause_turn');
  });

  it('gives malformed tool input an input_error instead of throwing; no input at all is {}', async () => {
    server.reply(sse(fixture('anthropic/bad-json.sse')));
    const { result } = await complete(provider());
    const [bad, empty] = result.content;
    expect(bad).toMatchObject({ type: 'tool_use', id: 'toolu_01BadJson000000000000001', name: 'Write', input: {} });
    expect((bad as { input_error?: string }).input_error).toMatch(/not valid JSON/);
    expect(empty).toEqual({ type: 'tool_use', id: 'toolu_01NoInput0000000000000002', name: 'Glob', input: {} });
    expect(result.stopReason).toBe('tool_use');
  });
});

describe('AnthropicProvider: the request', () => {
  it('sends the Messages API body and headers; thinking goes back exactly, unsigned thinking and empty text do not', async () => {
    server.reply(sse(fixture('anthropic/text.sse')));
    const results: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'const a = 1;' }], is_error: false },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'invalid input' }], is_error: true },
        { type: 'text', text: 'go on' },
      ],
    };
    await complete(provider(), {
      system: 'You are terse.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix main.ts' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Read it first.', signature: 'EqQBCgIYAhIMsig==' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3p/Lf+Pz==' },
            { type: 'thinking', thinking: 'another provider reasoned', signature: '' },
            { type: 'text', text: '' },
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'main.ts' } },
            { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: {}, input_error: 'the tool input is not valid JSON' },
          ],
        },
        results,
      ],
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }],
      maxTokens: 4096,
      thinking: { budgetTokens: 2048 },
    });
    const [got] = server.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/v1/messages');
    expect(got?.headers['x-api-key']).toBe(KEY);
    expect(got?.headers['anthropic-version']).toBe('2023-06-01');
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers.accept).toBe('text/event-stream');
    expect(got?.headers.authorization).toBeUndefined();
    // Byte for byte, so the field order is checked too.
    expect(got?.body).toBe(
      JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 4096,
        system: 'You are terse.',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Fix main.ts' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Read it first.', signature: 'EqQBCgIYAhIMsig==' },
              { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3p/Lf+Pz==' },
              { type: 'text', text: 'Reading it.' },
              { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'main.ts' } },
              { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: {} },
            ],
          },
          results,
        ],
        tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }],
        thinking: { type: 'enabled', budget_tokens: 2048 },
        stream: true,
      }),
    );
  });

  it('leaves out system, tools and the key when there are none; a trailing slash on the base URL is dropped', async () => {
    server.reply(sse(fixture('anthropic/text.sse')));
    await complete(provider({ baseUrl: `${server.origin}/`, apiKey: undefined }));
    const [got] = server.received;
    expect(got?.url).toBe('/v1/messages');
    expect(got?.headers['x-api-key']).toBeUndefined();
    expect(JSON.parse(got!.body)).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }], stream: true });
  });

  it('maps an effort to a thinking budget (an explicit budget wins) and raises max_tokens above a budget it does not exceed', () => {
    const p = provider();
    const body = (thinking: ModelRequest['thinking'], maxTokens = 32_000) => p.requestBody(request({ thinking, maxTokens }).request);
    const sent = (...args: Parameters<typeof body>) => [body(...args).max_tokens, (body(...args).thinking as { budget_tokens: number }).budget_tokens];
    expect([sent({ effort: 'low' }), sent({ effort: 'medium' }), sent({ effort: 'high' })]).toEqual([[32_000, 2048], [32_000, 8192], [32_000, 24_576]]);
    expect([sent({ budgetTokens: 5000, effort: 'high' }), sent({ budgetTokens: 100 })]).toEqual([[32_000, 5000], [32_000, 1024]]);
    expect([sent({ budgetTokens: 16_000 }, 4096), sent({ budgetTokens: 4096 }, 4096), sent({ effort: 'high' }, 8192)]).toEqual([[20_096, 16_000], [8192, 4096], [32_768, 24_576]]);
  });
});

describe('AnthropicProvider: retries', () => {
  it('retries an HTTP 529 and then succeeds', async () => {
    server.reply(jsonError(529, fixture('anthropic/529.json')), sse(fixture('anthropic/text.sse')));
    const { result, retries } = await complete(provider());
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1 });
    expect(retries[0]!.reason).toMatch(/HTTP 529.*Overloaded/);
    expect(slept).toEqual([retries[0]!.delayMs]);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
    expect(server.received).toHaveLength(2);
  });

  it('retries an overloaded_error event in the stream and then succeeds', async () => {
    server.reply(sse(fixture('anthropic/overloaded.sse')), sse(fixture('anthropic/tool-use.sse')));
    const { result, retries } = await complete(provider());
    expect(retries.map((r) => r.reason)).toEqual(['anthropic stream error: overloaded_error: Overloaded']);
    expect(result.stopReason).toBe('tool_use');
    expect(server.received).toHaveLength(2);
  });

  it('honours retry-after', async () => {
    server.reply(jsonError(529, fixture('anthropic/529.json'), { 'retry-after': '2' }), sse(fixture('anthropic/text.sse')));
    const { retries } = await complete(provider());
    expect(retries.map((r) => r.delayMs)).toEqual([2000]);
    expect(slept).toEqual([2000]);
  });

  it('gives up at once when retry-after asks for more than 60 s', async () => {
    server.reply(jsonError(529, fixture('anthropic/529.json'), { 'retry-after': '120' }));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_overloaded');
    expect(err.retryAfterS).toBe(120);
    expect(err.message).toMatch(/retried after 120 s, longer than the 60 s/);
    expect(retries).toEqual([]);
    expect(server.received).toHaveLength(1);
  });

  it('retries a stream that ends before message_stop from scratch; onRetry voids the text streamed so far', async () => {
    const body = fixture('anthropic/text.sse');
    server.reply(sse(body, { cutAt: body.indexOf('☕') }), sse(body));
    const { result, texts, retries } = await complete(provider());
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toMatch(/ended early/);
    expect(texts.length).toBeGreaterThan(TEXT_DELTAS.length);
    expect(texts.slice(-TEXT_DELTAS.length).map(([t]) => t)).toEqual(TEXT_DELTAS);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
  });

  it('retries a stream whose connection breaks mid-way', async () => {
    const body = fixture('anthropic/tool-use.sse');
    server.reply(sse(body, { cutAt: body.indexOf('naïve'), then: 'destroy' }), sse(body));
    const { result, retries } = await complete(provider());
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toMatch(/cut off|ended early/);
    expect(result.stopReason).toBe('tool_use');
  });

  it('fails with provider_stream when every attempt is cut off', async () => {
    const body = fixture('anthropic/text.sse');
    server.always(sse(body, { cutAt: body.length - 10 }));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_stream');
    expect(err.message).toMatch(/^the anthropic stream ended early, before message_stop \(gave up after 2 retries\)$/);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(server.received).toHaveLength(3);
  });

  it('does not retry an error event that is not transient', async () => {
    server.reply(sse(fixture('anthropic/invalid-request.sse')));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_stream');
    expect(err.message).toContain('invalid_request_error: prompt is too long');
    expect(retries).toEqual([]);
  });
});

describe('AnthropicProvider: failures', () => {
  it('401 is provider_auth, not retried, and the message names the status and the reason but not the key', async () => {
    server.always(jsonError(401, fixture('anthropic/401.json')));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_auth');
    expect(err.status).toBe(401);
    expect(err.message).toBe('anthropic answered HTTP 401: authentication_error: invalid x-api-key');
    expect(err.message).not.toContain(KEY);
    expect(retries).toEqual([]);
    expect(server.received).toHaveLength(1);
  });

  it('400 is provider_rejected with the provider message', async () => {
    server.always(jsonError(400, fixture('anthropic/400.json')));
    const { err } = await failure(provider());
    expect(err.code).toBe('provider_rejected');
    expect(err.message).toMatch(/^anthropic answered HTTP 400: invalid_request_error: messages\.1\.content/);
    expect(server.received).toHaveLength(1);
  });

  it('scrubs the key should the provider echo it back', async () => {
    server.always(jsonError(403, JSON.stringify({ type: 'error', error: { type: 'permission_error', message: `key ${KEY} may not use this model` } })));
    const { err } = await failure(provider());
    expect(err.code).toBe('provider_auth');
    expect(err.message).not.toContain(KEY);
    expect(err.message).toContain('key [redacted] may not use this model');
  });

  it('scrubs the key before the message is cut: a long echo of most of the key loses all of it', async () => {
    // 42 of the key's characters after 480 of padding: cutting first would keep most of them.
    const partial = KEY.slice(0, 42);
    server.always(jsonError(401, JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `${'p'.repeat(480)} invalid x-api-key ${partial}` } })));
    const { err } = await failure(provider());
    for (let i = 0; i + 12 <= KEY.length; i++) expect(err.message).not.toContain(KEY.slice(i, i + 12));
    expect(err.message).toMatch(/^anthropic answered HTTP 401: authentication_error: p{400}/);
  });

  it('scrubs a key echoed inside a stream error event', async () => {
    server.always({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: `${'q'.repeat(600)} ${KEY}` } })}\n\n` });
    const { err } = await failure(provider());
    for (let i = 0; i + 12 <= KEY.length; i++) expect(err.message).not.toContain(KEY.slice(i, i + 12));
  });

  it('truncates a long error message', async () => {
    server.always(jsonError(422, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'x'.repeat(5000) } })));
    const { err } = await failure(provider());
    expect(err.code).toBe('provider_rejected');
    expect(err.message.length).toBeLessThan(600);
  });

  it('connection refused is provider_unreachable, after the retries', async () => {
    const gone = await new FakeServer().start();
    const port = gone.port;
    await gone.close();
    const { err, retries } = await failure(provider({ baseUrl: `http://127.0.0.1:${port}` }));
    expect(err.code).toBe('provider_unreachable');
    expect(err.message).toBe(`cannot reach http://127.0.0.1:${port}/v1/messages: connect ECONNREFUSED 127.0.0.1:${port} (gave up after 2 retries)`);
    expect(retries).toHaveLength(2);
  });

  it('fails a response larger than 16 MiB without retrying it', async () => {
    const pad = `: ${'x'.repeat(1024 * 1024 - 3)}\n`;
    server.always(sse(pad.repeat(17)));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_stream');
    expect(err.message).toMatch(/more than 16 MiB/);
    expect(retries).toEqual([]);
  });
});

describe('AnthropicProvider: after the terminal event', () => {
  for (const egress of [null, { allow: ['127.0.0.1'] }]) {
    const kind = egress ? 'behind the egress guard' : 'without it';
    it(`answers at once when the server holds the stream open after message_stop (${kind}), and that connection is not reused`, async () => {
      const p = provider({ egress, timeouts: { connectMs: 5000, headersMs: 5000, idleMs: 30_000 } });
      server.reply(sse(fixture('anthropic/text.sse'), { then: 'hang' }), sse(fixture('anthropic/text.sse')));
      const started = Date.now();
      const { result, retries } = await complete(p);
      expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
      expect(retries).toEqual([]);
      // Not the 30 s idle timeout: the answer was complete.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await server.received[0]!.closed).toEqual({ finished: false });
      await complete(p);
      expect(server.received[1]!.remotePort).not.toBe(server.received[0]!.remotePort);
    });

    it(`keeps the answer when the connection breaks after message_stop (${kind}): no retry, no second call`, async () => {
      const p = provider({ egress });
      server.reply(sse(fixture('anthropic/text.sse'), { then: 'destroy' }));
      const { result, retries } = await complete(p);
      expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
      expect(retries).toEqual([]);
      expect(server.received).toHaveLength(1);
    });
  }
});

describe('AnthropicProvider: cancellation', () => {
  it('stops mid-stream when the signal aborts: rejects with its reason at once, and the connection closes', async () => {
    const body = fixture('anthropic/text.sse');
    // Everything up to the second text delta, then the server holds the stream open.
    server.reply(sse(body, { cutAt: body.indexOf(' ! Le café'), then: 'hang' }));
    const ac = new AbortController();
    const reason = new Error('turn cancelled');
    const started = Date.now();
    const run = request({ signal: ac.signal, onText: () => ac.abort(reason) });
    await expect(provider().complete(run.request)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await server.received[0]!.closed).toEqual({ finished: false });
  });

  it('stops a backoff sleep when the signal aborts', async () => {
    server.always(jsonError(529, fixture('anthropic/529.json'), { 'retry-after': '30' }));
    const ac = new AbortController();
    const reason = new Error('turn cancelled');
    const started = Date.now();
    // The real sleep: the provider would wait 30 s.
    const p = provider({ sleep: undefined });
    const run = request({ signal: ac.signal, onRetry: () => setTimeout(() => ac.abort(reason), 20) });
    await expect(p.complete(run.request)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.received).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const ac = new AbortController();
    ac.abort(new Error('before'));
    await expect(provider().complete(request({ signal: ac.signal }).request)).rejects.toThrow('before');
    expect(server.received).toHaveLength(0);
  });
});

describe('AnthropicProvider: a session-supplied URL goes through the egress guard', () => {
  it('is refused when the address is not allowlisted, and not retried', async () => {
    const { err, retries } = await failure(provider({ egress: { allow: [] } }));
    expect(err.code).toBe('provider_unreachable');
    expect(err.message).toBe('refused by the egress guard: 127.0.0.1: loopback addresses are not allowed (NORMA_EGRESS_ALLOW can open specific ones)');
    expect(retries).toEqual([]);
    expect(server.received).toHaveLength(0);
  });

  it('reuses the connection to the checked address for the next call; a failed attempt\'s is not reused', async () => {
    const p = provider({ egress: { allow: ['127.0.0.1'] } });
    const calls = 6;
    for (let i = 0; i < calls; i++) server.reply(sse(fixture('anthropic/text.sse')));
    for (let i = 0; i < calls; i++) expect((await complete(p)).result.content).toEqual([{ type: 'text', text: TEXT }]);
    expect(server.received).toHaveLength(calls);
    // Kept-alive connections are reused (undici may open a second while the first finishes its
    // response): not a TCP (and, to a real provider, TLS) handshake per call.
    const ports = new Set(server.received.map((r) => r.remotePort));
    expect(ports.size).toBeLessThanOrEqual(2);
    server.reply(jsonError(529, fixture('anthropic/529.json')), sse(fixture('anthropic/text.sse')));
    const { retries } = await complete(p);
    expect(retries).toHaveLength(1);
    const [failed, retried] = server.received.slice(calls);
    expect(ports.has(failed!.remotePort)).toBe(true);
    expect(ports.has(retried!.remotePort)).toBe(false);
  });

  it('works when the allowlist opens 127.0.0.1, on every attempt', async () => {
    server.reply(jsonError(529, fixture('anthropic/529.json')), sse(fixture('anthropic/text.sse')));
    const { result, retries } = await complete(provider({ egress: { allow: ['127.0.0.1'] } }));
    expect(retries).toHaveLength(1);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
    expect(server.received).toHaveLength(2);
  });
});
