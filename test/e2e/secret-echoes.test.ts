// A peer that echoes a secret back — a model provider's error, an http hook's answer — in any
// encoding (base64 of every kind and alignment, percent-encoding, hex, JSON escapes, quoted
// pieces) leaves none of it in what the server stores and shows: the turn, the event stream, the
// hook runs, the decisions, the export.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, jsonError, sse } from '../model/fake-server.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { encodedEchoes, leaked } from '../helpers/secret-echoes.js';

const TOKEN = 'norma-token-Q7v2/Lx9+Rk4Zp1Wm8Tj';
const SESSION_KEY = 'sk-ant-api03-Zq8v/Lm2Xr7+TnB4wKs9PdYc1HgFj6UeA0oR=';
const OPERATOR_KEY = 'sk-proj-Hd83kQ/pLw02+XyZbN7vMcR5tGfJ1sAe9uIo';
const HOOK_SECRET = 'whsec_5tGf/J1sAe9u+Io0HdQ83kpLw02XyZbN';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let streams: SseStream[] = [];
let hookServers: http.Server[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
  for (const h of hookServers) h.closeAllConnections();
  await Promise.all(hookServers.map((h) => new Promise((r) => h.close(r))));
  hookServers = [];
});

const FAST = { modelOptions: { retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } } };

async function fake(): Promise<FakeServer> {
  const f = await new FakeServer().start();
  fakes.push(f);
  return f;
}

async function boot(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_TOKEN: TOKEN, NORMA_EGRESS_ALLOW: '127.0.0.1,127.0.0.2', ...env }, FAST);
  servers.push(t);
  return t;
}

const auth = { authorization: `Bearer ${TOKEN}` };

/** Every string in a JSON value, joined: what a client reads once it decoded the JSON. */
function strings(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return '';
  return Object.values(value as Record<string, unknown>).map(strings).join('\n');
}

/** What the server shows of a session: its turns one by one and listed, its events as streamed, hook runs, decisions, the export. */
async function everythingShown(t: TestServer, sessionId: string, turnIds: string[]): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  for (const id of turnIds) shown[`GET turn ${id}`] = (await t.api.get(`/v1/sessions/${sessionId}/turns/${id}`)).text;
  shown['GET turns'] = (await t.api.get(`/v1/sessions/${sessionId}/turns`)).text;
  shown['GET hook-runs'] = (await t.api.get(`/v1/sessions/${sessionId}/hook-runs`)).text;
  shown['GET decisions'] = (await t.api.get(`/v1/sessions/${sessionId}/decisions`)).text;
  const last = turnIds.at(-1)!;
  const events = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, { lastEventId: '0', token: TOKEN });
  streams.push(events);
  await events.waitFor((e) => e.event.startsWith('turn.') && e.data.turn?.id === last && ['turn.failed', 'turn.completed'].includes(e.event));
  shown['SSE events'] = JSON.stringify(events.events.map((e) => e.data));
  const exported = await fetch(`${t.url}/v1/sessions/${sessionId}/export`, { headers: auth });
  expect(exported.status).toBe(200);
  shown.export = await exported.text();
  return shown;
}

function expectNoneOf(shown: Record<string, string>, secrets: Record<string, string>) {
  for (const [where, text] of Object.entries(shown)) {
    let decoded = '';
    try {
      decoded = strings(JSON.parse(text));
    } catch {
      decoded = '';
    }
    for (const [name, secret] of Object.entries(secrets)) {
      expect(leaked(text, secret), `${name} in ${where}`).toEqual([]);
      expect(leaked(decoded, secret), `${name} in ${where} (decoded)`).toEqual([]);
    }
  }
}

describe('a model provider that echoes a key in an error', () => {
  it('Anthropic, the session\'s own key: no encoding of it reaches the turn, the events or the export', async () => {
    const f = await fake();
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: SESSION_KEY } })).body;
    const turns: string[] = [];
    const echoes = Object.entries(encodedEchoes(SESSION_KEY));
    for (const [i, [name, echo]] of echoes.entries()) {
      // Half as Anthropic's JSON error (the echo JSON-escaped on the wire), half as plain text.
      const message = `invalid x-api-key: ${echo} (${name})`;
      f.reply(i % 2 === 0 ? jsonError(401, JSON.stringify({ type: 'error', error: { type: 'authentication_error', message } })) : { status: 401, headers: { 'content-type': 'text/plain' }, body: message });
      const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' });
      expect(res.body, name).toMatchObject({ status: 'failed', error: { code: 'provider_auth' } });
      // The echo reached the message, redacted: the rest of the provider's words are kept.
      expect(res.body.error.message, name).toContain('[redacted]');
      expect(res.body.error.message, name).toContain(`(${name})`);
      turns.push(res.body.id);
    }
    expect(f.received).toHaveLength(echoes.length);
    expectNoneOf(await everythingShown(t, s.id, turns), { 'the session key': SESSION_KEY });
  });

  it('Anthropic, a stream error event: the key base64- and hex-encoded in it is redacted too', async () => {
    const f = await fake();
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: SESSION_KEY } })).body;
    const start = `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 1, output_tokens: 0 } } })}\n\n`;
    const b64 = Buffer.from(`key=${SESSION_KEY}`).toString('base64');
    const hex = Buffer.from(SESSION_KEY).toString('hex');
    f.reply(sse(`${start}event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: `bad ${b64} / ${hex}` } })}\n\n`));
    // An event that is not JSON is quoted (cut to 200 characters) in the error.
    f.reply(sse(`${start}event: content_block_start\ndata: ${'x'.repeat(150)} ${encodeURIComponent(SESSION_KEY)}\n\n`));
    const turns: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' });
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'provider_stream' } });
      expect(res.body.error.message).toContain('[redacted]');
      turns.push(res.body.id);
    }
    expectNoneOf(await everythingShown(t, s.id, turns), { 'the session key': SESSION_KEY });
  });

  it('OpenAI, the operator\'s NORMA_MODEL_API_KEY: no encoding of it, nor of NORMA_TOKEN, reaches the turn, the events or the export', async () => {
    const f = await fake();
    const t = await boot({ NORMA_MODEL_PROVIDER: 'openai', NORMA_MODEL: 'gpt-test', NORMA_MODEL_BASE_URL: `${f.origin}/v1`, NORMA_MODEL_API_KEY: OPERATOR_KEY });
    const s = (await t.api.post('/v1/sessions', {})).body;
    expect(s.model).toMatchObject({ provider: 'openai', source: 'server', has_api_key: true });
    const turns: string[] = [];
    const echoes = [...Object.entries(encodedEchoes(OPERATOR_KEY)), ...Object.entries(encodedEchoes(TOKEN)).map(([n, e]) => [`NORMA_TOKEN ${n}`, e] as const)];
    for (const [name, echo] of echoes) {
      f.reply(jsonError(401, JSON.stringify({ error: { message: `Incorrect API key provided: ${echo} (${name})`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } })));
      const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' });
      expect(res.body, name).toMatchObject({ status: 'failed', error: { code: 'provider_auth' } });
      expect(res.body.error.message, name).toContain('[redacted]');
      turns.push(res.body.id);
    }
    expect(f.received[0]!.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
    expectNoneOf(await everythingShown(t, s.id, turns), { 'the operator key': OPERATOR_KEY, NORMA_TOKEN: TOKEN });
  });
});

describe('an http hook that echoes a secret in its answer', () => {
  it('leaves none of its secret, nor the session\'s model key, in the results, hook runs, decisions, events or export', async () => {
    const answers = [
      // A deny whose reason carries the hook's secret base64-encoded: the call's result and the decision.
      { status: 200, body: JSON.stringify({ decision: 'deny', reason: `denied, signature key ${Buffer.from(HOOK_SECRET).toString('base64')}` }) },
      // A failure whose body carries the secret in hex and the model key percent-encoded: the hook run's error.
      { status: 500, body: `upstream: ${Buffer.from(HOOK_SECRET).toString('hex')} ${encodeURIComponent(SESSION_KEY)}` },
      // Not JSON: the parser's message quotes the body.
      { status: 200, body: `not json ${JSON.stringify(HOOK_SECRET).slice(1, -1).replace(/\//g, '\\/')}` },
      // Context for the model and an ask whose reason splits the secret into quoted pieces.
      { status: 200, body: JSON.stringify({ decision: 'allow', reason: HOOK_SECRET.match(/.{1,6}/g)!.map((p) => `"${p}"`).join(' + '), additionalContext: `ctx ${Buffer.from(HOOK_SECRET).toString('base64url')}` }) },
    ];
    let calls = 0;
    const hook = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const a = answers[Math.min(calls++, answers.length - 1)]!;
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(a.body);
      });
    });
    hookServers.push(hook);
    await new Promise<void>((r) => hook.listen(0, '127.0.0.2', r));
    const url = `http://127.0.0.2:${(hook.address() as { port: number }).port}/hook`;
    const f = await fake();
    const t = await boot();
    const s = (
      await t.api.post('/v1/sessions', {
        permission_mode: 'bypassPermissions',
        model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: SESSION_KEY },
        hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'http', url, secret: HOOK_SECRET, on_failure: 'continue' }] }] },
      })
    ).body;
    const turns: string[] = [];
    for (let i = 0; i < answers.length; i++) {
      const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'Write', input: { file_path: `f${i}.txt`, content: 'x' } }] });
      expect(res.status).toBe(200);
      turns.push(res.body.id);
    }
    expect(calls).toBe(answers.length);
    const shown = await everythingShown(t, s.id, turns);
    // The answers reached what is shown, redacted.
    expect(shown['GET hook-runs']).toContain('[redacted]');
    expect(shown[`GET turn ${turns[0]}`]).toContain('denied, signature key [redacted]');
    expectNoneOf(shown, { 'the hook secret': HOOK_SECRET, 'the session key': SESSION_KEY });
  });
});
