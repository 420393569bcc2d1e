// The OpenAI-compatible provider against a loopback server replaying recorded Chat Completions
// streams (OpenAI itself, Ollama, DeepSeek, gateways, an sse-starlette server): what it sends, how
// it assembles reasoning, text and tool calls, and how it retries, fails and stops when cancelled.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpProviderOptions } from '../../src/model/http.js';
import { OpenAIProvider, toOpenAIMessages } from '../../src/model/openai.js';
import type { Message, ModelRequest } from '../../src/model/provider.js';
import { FakeServer, fixture, jsonError, sse } from './fake-server.js';
import { complete, failure, request } from './harness.js';

const KEY = 'sk-test-proj-TESTKEY-aBcDeFgHiJkLmNoPqRsTuVwXyZ012345';
const server = new FakeServer();
const providers: OpenAIProvider[] = [];
let slept: number[] = [];

beforeAll(async () => {
  await server.start();
});
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
  server.reset();
  slept = [];
});
afterAll(async () => {
  await server.close();
});

function provider(over: Partial<HttpProviderOptions> = {}): OpenAIProvider {
  const p = new OpenAIProvider({
    model: 'gpt-4o',
    baseUrl: `${server.origin}/v1`,
    apiKey: KEY,
    egress: null,
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 4 },
    sleep: async (ms) => {
      slept.push(ms);
    },
    ...over,
  });
  providers.push(p);
  return p;
}

const TEXT_DELTAS = ['Bonjour', ' ! Le café', ' ☕ est prêt', ' — 日本語も', 'OK 🙂.'];
const TEXT = TEXT_DELTAS.join('');

describe('OpenAIProvider: reading the stream', () => {
  it('keeps cached prompt tokens apart (part of prompt_tokens, priced apart)', async () => {
    const chunk = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
    server.reply(
      sse(
        chunk({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] }) +
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
          chunk({ choices: [], usage: { prompt_tokens: 1200, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 1024 } } }) +
          'data: [DONE]\n\n',
      ),
    );
    const { result } = await complete(provider());
    expect(result.usage).toEqual({ input_tokens: 1200, output_tokens: 7, cache_read_input_tokens: 1024 });
    expect(result.usageReported).toBe(true);
  });

  it('streams a text answer in order, written 7 bytes at a time (each its own chunk)', async () => {
    server.reply(sse(fixture('openai/text.sse'), { split: 7 }));
    const { result, texts, retries } = await complete(provider());
    expect(texts).toEqual(TEXT_DELTAS.map((t) => [t, 0]));
    expect(result).toEqual({ content: [{ type: 'text', text: TEXT }], stopReason: 'end_turn', usage: { input_tokens: 19, output_tokens: 14 }, usageReported: true });
    expect(retries).toEqual([]);
  });

  it('reads pieces split inside a JSON string and inside a multi-byte character', async () => {
    const body = fixture('openai/text.sse');
    const inString = body.indexOf('"Bonjour"') + 4;
    const inChar = body.indexOf(Buffer.from('☕')) + 2;
    const inEmoji = body.indexOf(Buffer.from('🙂')) + 1;
    server.reply(sse(body, { split: [inString, inChar, inEmoji], delayMs: 5 }));
    const { result, texts } = await complete(provider());
    expect(texts.map(([t]) => t)).toEqual(TEXT_DELTAS);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
  });

  it('assembles a tool call whose arguments arrive in many fragments', async () => {
    server.reply(sse(fixture('openai/tool-call.sse'), { split: 29 }));
    const { result, texts } = await complete(provider());
    expect(texts).toEqual([
      ["I'll update", 0],
      [' the constant.', 0],
    ]);
    expect(result).toEqual({
      content: [
        { type: 'text', text: "I'll update the constant." },
        { type: 'tool_use', id: 'call_Xk3b9LmQ2vR8sT1yW4nZ6pA0', name: 'Edit', input: { path: 'src/main.ts', old_string: 'const a = 1;', new_string: 'const a = 2; // naïve ✓' } },
      ],
      stopReason: 'tool_use',
      usage: { input_tokens: 120, output_tokens: 41 },
      usageReported: true,
    });
  });

  it('keeps two parallel tool calls in index order', async () => {
    server.reply(sse(fixture('openai/two-tools.sse'), { split: 100 }));
    const { result, texts } = await complete(provider());
    expect(texts).toEqual([]);
    expect(result).toEqual({
      content: [
        { type: 'tool_use', id: 'call_R3ad0000000000000000000A', name: 'Read', input: { file_path: '/work/README.md' } },
        { type: 'tool_use', id: 'call_Bash000000000000000000B', name: 'Bash', input: { command: 'ls -la', description: 'List files' } },
      ],
      stopReason: 'tool_use',
      usage: { input_tokens: 300, output_tokens: 62 },
      usageReported: true,
    });
  });

  it('gives malformed or non-object arguments an input_error instead of throwing', async () => {
    server.reply(sse(fixture('openai/bad-json.sse')));
    const { result } = await complete(provider());
    const [bad, array] = result.content as { input: unknown; input_error?: string; name: string }[];
    expect(bad).toMatchObject({ type: 'tool_use', id: 'call_BadJson00000000000000C', name: 'Write', input: {} });
    expect(bad!.input_error).toMatch(/not valid JSON/);
    expect(array).toMatchObject({ type: 'tool_use', id: 'call_Array000000000000000000D', name: 'Glob', input: {} });
    expect(array!.input_error).toMatch(/JSON object/);
  });

  it('takes Ollama-style calls: whole in one chunk, without ids, finished by "stop"', async () => {
    server.reply(sse(fixture('openai/ollama-tools.sse')));
    const { result } = await complete(provider());
    expect(result.stopReason).toBe('tool_use');
    expect(result.content).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'Read', input: { file_path: '/work/README.md' } },
      { type: 'tool_use', id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'Glob', input: { pattern: '**/*.ts' } },
    ]);
    const [a, b] = result.content as { id: string }[];
    expect(a!.id).not.toBe(b!.id);
    expect(result.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(result.usageReported).toBe(false);
  });

  it('reads CRLF streams with ": ping" keep-alive comments; finish_reason length is max_tokens', async () => {
    server.reply(sse(fixture('openai/keepalive-crlf.sse'), { split: 5 }));
    const { result, texts } = await complete(provider());
    expect(texts).toEqual([
      ['Hello', 0],
      [', wörld', 0],
    ]);
    expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, wörld' }], stopReason: 'max_tokens', usage: { input_tokens: 11, output_tokens: 16 }, usageReported: true });
  });
});

describe('OpenAIProvider: reasoning and gateways', () => {
  it('reads reasoning_content (DeepSeek) as a thinking block without a signature, ahead of the text', async () => {
    server.reply(sse(fixture('openai/reasoning-content.sse'), { split: 61 }));
    const thoughts: [string, number][] = [];
    const { result, texts } = await complete(provider(), { onThinking: (t, i) => thoughts.push([t, i]) });
    expect(thoughts).toEqual([['The user ', 0], ['wants a greeting', 0], ['; keep it short.', 0]]);
    expect(texts).toEqual([['Hello', 1], ['! 👋', 1]]);
    expect(result.content).toEqual([{ type: 'thinking', thinking: 'The user wants a greeting; keep it short.', signature: '' }, { type: 'text', text: 'Hello! 👋' }]);
    expect(result).toMatchObject({ stopReason: 'end_turn', usage: { input_tokens: 12, output_tokens: 25 } });
  });

  it('reads `reasoning` (newer vLLM, Ollama, OpenRouter), once when sent under both names; text and calls follow it', async () => {
    const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } };
    server.reply(sse(chunk({ role: 'assistant', content: '', reasoning: 'Look at a.ts', reasoning_content: 'Look at a.ts' }) + chunk({ reasoning: ' first.' }) + chunk({ content: 'Reading.' }) + chunk({ tool_calls: [call] }, 'tool_calls') + 'data: [DONE]\n\n'));
    const { result, texts } = await complete(provider());
    expect(texts).toEqual([['Reading.', 1]]);
    expect(result.content).toEqual([
      { type: 'thinking', thinking: 'Look at a.ts first.', signature: '' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'call_1', name: 'Read', input: { file_path: 'a.ts' } },
    ]);
  });

  for (const [name, how] of [
    ['index0-whole', 'whole in one chunk each'],
    ['index0-fragments', 'in two fragments each, the second without an id'],
  ]) {
    it(`keeps parallel calls apart that a gateway sends all at index 0 with distinct ids, ${how}`, async () => {
      server.reply(sse(fixture(`openai/${name}.sse`), { split: 37 }));
      const { result } = await complete(provider());
      expect(result.content).toEqual([
        { type: 'tool_use', id: 'call_R3ad0000000000000000000A', name: 'Read', input: { file_path: '/work/README.md' } },
        { type: 'tool_use', id: 'call_Bash000000000000000000B', name: 'Bash', input: { command: 'ls -la', description: 'List files' } },
      ]);
      expect(result.stopReason).toBe('tool_use');
    });
  }
});

describe('OpenAIProvider: refusals', () => {
  it('streams a refusal as text and reports stopReason refusal', async () => {
    server.reply(sse(fixture('openai/refusal.sse')));
    const { result, texts } = await complete(provider());
    expect(texts.map(([t]) => t)).toEqual(["I'm sorry", ", I can't help", ' with that.']);
    expect(result).toEqual({ content: [{ type: 'text', text: "I'm sorry, I can't help with that." }], stopReason: 'refusal', usage: { input_tokens: 30, output_tokens: 9 }, usageReported: true });
  });
});

describe('OpenAIProvider: the request', () => {
  it('sends the Chat Completions body and headers; tool results pair with their calls', async () => {
    server.reply(sse(fixture('openai/text.sse')));
    await complete(provider(), {
      system: 'You are terse.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix main.ts' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'call_1', name: 'Read', input: { file_path: 'main.ts' } },
            { type: 'tool_use', id: 'call_2', name: 'Bash', input: {}, input_error: 'the tool input is not valid JSON' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'const a = 1;' }], is_error: false },
            { type: 'text', text: 'go on' },
            { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'invalid input' }], is_error: true },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_3', name: 'Read', input: { file_path: 'b.ts' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_3', content: [{ type: 'text', text: 'line 1' }, { type: 'text', text: 'line 2' }], is_error: false }] },
      ],
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }],
      maxTokens: 4096,
    });
    const [got] = server.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/v1/chat/completions');
    expect(got?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers.accept).toBe('text/event-stream');
    expect(got?.headers['x-api-key']).toBeUndefined();
    // Byte for byte, so the field order is checked too.
    expect(got?.body).toBe(
      JSON.stringify({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Fix main.ts' },
          {
            role: 'assistant',
            content: 'Reading it.',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"main.ts"}' } },
              { id: 'call_2', type: 'function', function: { name: 'Bash', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'const a = 1;' },
          { role: 'tool', tool_call_id: 'call_2', content: 'invalid input' },
          { role: 'user', content: 'go on' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'Read', arguments: '{"file_path":"b.ts"}' } }] },
          { role: 'tool', tool_call_id: 'call_3', content: 'line 1\nline 2' },
        ],
        tools: [{ type: 'function', function: { name: 'Read', description: 'Reads a file', parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } } }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 4096,
      }),
    );
  });

  it('sends no authorization without a key and no tools when there are none; a trailing slash is dropped', async () => {
    server.reply(sse(fixture('openai/text.sse')));
    await complete(provider({ baseUrl: `${server.origin}/v1/`, apiKey: undefined }));
    const [got] = server.received;
    expect(got?.url).toBe('/v1/chat/completions');
    expect(got?.headers.authorization).toBeUndefined();
    expect(got?.body).toBe('{"model":"gpt-4o","messages":[{"role":"user","content":"Say hello"}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":1024}');
  });

  it('sends reasoning_effort (from a budget when no effort is given) and leaves thinking out of the messages', () => {
    const p = provider();
    const effort = (thinking: ModelRequest['thinking']) => p.requestBody(request({ thinking }).request).reasoning_effort;
    expect([effort({ effort: 'low' }), effort({ effort: 'high', budgetTokens: 1024 }), effort(undefined)]).toEqual(['low', 'high', undefined]);
    expect([4096, 4097, 16_384, 16_385].map((budgetTokens) => effort({ budgetTokens }))).toEqual(['low', 'medium', 'medium', 'high']);
    const thought = { type: 'thinking', thinking: 'hmm', signature: 'sig' } as const;
    const messages: Message[] = [
      { role: 'assistant', content: [thought, { type: 'redacted_thinking', data: 'x' }, { type: 'text', text: 'Hi' }, { type: 'tool_use', id: 'call_1', name: 'Read', input: {} }] },
      { role: 'assistant', content: [thought] },
    ];
    expect(toOpenAIMessages(undefined, messages)).toEqual([
      { role: 'assistant', content: 'Hi', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{}' } }] },
      { role: 'assistant', content: '' },
    ]);
  });
});

describe('OpenAIProvider: retries', () => {
  it('retries an HTTP 503 with backoff and then succeeds', async () => {
    server.reply(jsonError(503, fixture('openai/503.json')), sse(fixture('openai/text.sse')));
    const { result, retries } = await complete(provider());
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toBe('openai answered HTTP 503: server_error: The engine is currently overloaded, please try again later');
    expect(slept).toEqual([retries[0]!.delayMs]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(0);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(1);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
  });

  it('retries an HTTP 429 after the retry-after it names', async () => {
    server.reply(jsonError(429, fixture('openai/429.json'), { 'retry-after': '1' }), sse(fixture('openai/tool-call.sse')));
    const { result, retries } = await complete(provider());
    expect(retries).toEqual([{ attempt: 1, delayMs: 1000, reason: expect.stringMatching(/^openai answered HTTP 429: tokens: Rate limit reached for gpt-4o/) }]);
    expect(slept).toEqual([1000]);
    expect(result.stopReason).toBe('tool_use');
    expect(server.received).toHaveLength(2);
  });

  it('gives up at once when a 429 asks to wait longer than 60 s', async () => {
    server.reply(jsonError(429, fixture('openai/429.json'), { 'retry-after': '600' }));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_overloaded');
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/retried after 600 s, longer than the 60 s/);
    expect(retries).toEqual([]);
  });

  it('retries a server_error chunk in the stream and then succeeds', async () => {
    server.reply(sse(fixture('openai/server-error.sse')), sse(fixture('openai/text.sse')));
    const { result, texts, retries } = await complete(provider());
    expect(retries.map((r) => r.reason)).toEqual(['openai stream error: server_error: The server had an error while processing your request. Sorry about that!']);
    expect(texts[0]).toEqual(['Partial', 0]);
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
  });

  it('does not retry an error chunk that is not transient', async () => {
    server.reply(sse(fixture('openai/invalid-prompt.sse')));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_stream');
    expect(err.message).toBe('openai stream error: invalid_request_error (invalid_prompt): Invalid prompt: your prompt was flagged as potentially violating our usage policy.');
    expect(retries).toEqual([]);
  });

  it('retries a stream that ends before [DONE] from scratch', async () => {
    const body = fixture('openai/tool-call.sse');
    server.reply(sse(body, { cutAt: body.indexOf('naïve') }), sse(body));
    const { result, retries } = await complete(provider());
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toBe('the openai stream ended early, before [DONE]');
    expect(result.content).toHaveLength(2);
    expect(result.content[1]).toMatchObject({ input: { new_string: 'const a = 2; // naïve ✓' } });
  });

  it('fails with provider_stream when every attempt is cut off', async () => {
    const body = fixture('openai/text.sse');
    // Everything but [DONE].
    server.always(sse(body, { cutAt: body.indexOf('data: [DONE]') }));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_stream');
    expect(err.message).toBe('the openai stream ended early, before [DONE] (gave up after 2 retries)');
    expect(retries).toHaveLength(2);
    expect(server.received).toHaveLength(3);
  });
});

describe('OpenAIProvider: failures', () => {
  it('401 is provider_auth, not retried, and the message does not contain the key', async () => {
    server.always(jsonError(401, fixture('openai/401.json')));
    const { err, retries } = await failure(provider());
    expect(err.code).toBe('provider_auth');
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/^openai answered HTTP 401: invalid_request_error: Incorrect API key provided: sk-test-\*+2345\./);
    expect(err.message).not.toContain(KEY);
    expect(retries).toEqual([]);
    expect(server.received).toHaveLength(1);
  });

  it('404 from a compatible server is provider_rejected with its message', async () => {
    server.always(jsonError(404, '{"error":"model \\"llama9\\" not found, try pulling it first"}'));
    const { err } = await failure(provider());
    expect(err.code).toBe('provider_rejected');
    expect(err.message).toBe('openai answered HTTP 404: model "llama9" not found, try pulling it first');
  });

  it('connection refused is provider_unreachable', async () => {
    const gone = await new FakeServer().start();
    const port = gone.port;
    await gone.close();
    const { err, retries } = await failure(provider({ baseUrl: `http://127.0.0.1:${port}/v1`, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } }));
    expect(err.code).toBe('provider_unreachable');
    expect(err.message).toBe(`cannot reach http://127.0.0.1:${port}/v1/chat/completions: connect ECONNREFUSED 127.0.0.1:${port} (gave up after 1 retry)`);
    expect(retries).toHaveLength(1);
  });

  it('a stream silent for longer than the idle timeout fails with provider_timeout (retryable)', async () => {
    // undici checks body timeouts on a coarse (~1 s) clock: one attempt only, to stay fast.
    const body = fixture('openai/text.sse');
    server.always(sse(body, { cutAt: 400, then: 'hang' }));
    const { err } = await failure(provider({ timeouts: { connectMs: 1000, headersMs: 1000, idleMs: 100 }, retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } }));
    expect(err.code).toBe('provider_timeout');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe(`the stream from ${server.origin}/v1/chat/completions was silent for more than 100 ms`);
  });

  it('a JSON answer where a stream was asked for is provider_stream', async () => {
    server.always({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"error":{"message":"streaming is not supported","type":"invalid_request_error"}}' });
    const { err } = await failure(provider());
    expect(err.code).toBe('provider_stream');
    expect(err.message).toBe('openai answered HTTP 200 with application/json instead of an event stream: invalid_request_error: streaming is not supported');
  });
});

describe('OpenAIProvider: cancellation', () => {
  it('stops mid-stream when the signal aborts: rejects with its reason at once, and the connection closes', async () => {
    const body = fixture('openai/text.sse');
    server.reply(sse(body, { cutAt: body.indexOf('data: ', body.indexOf('Bonjour')), then: 'hang' }));
    const ac = new AbortController();
    const reason = new Error('turn cancelled');
    const started = Date.now();
    const texts: string[] = [];
    const run = request({
      signal: ac.signal,
      onText: (t) => {
        texts.push(t);
        ac.abort(reason);
      },
    });
    await expect(provider().complete(run.request)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(texts).toEqual(['Bonjour']);
    expect(await server.received[0]!.closed).toEqual({ finished: false });
  });

  it('stops while waiting for the response headers', async () => {
    server.always({ status: 200, headers: {}, body: '', then: 'hang' });
    const ac = new AbortController();
    const reason = new Error('turn cancelled');
    setTimeout(() => ac.abort(reason), 50);
    await expect(provider().complete(request({ signal: ac.signal }).request)).rejects.toBe(reason);
  });
});

describe('OpenAIProvider: a session-supplied URL goes through the egress guard', () => {
  it('is refused when the address is not allowlisted', async () => {
    const { err, retries } = await failure(provider({ egress: { allow: [] } }));
    expect(err.code).toBe('provider_unreachable');
    expect(err.message).toMatch(/^refused by the egress guard: 127\.0\.0\.1: loopback addresses are not allowed/);
    expect(retries).toEqual([]);
    expect(server.received).toHaveLength(0);
  });

  it('works when the allowlist opens it', async () => {
    server.reply(sse(fixture('openai/text.sse')));
    const { result } = await complete(provider({ egress: { allow: ['127.0.0.0/8'] } }));
    expect(result.content).toEqual([{ type: 'text', text: TEXT }]);
  });
});
